package io.sluice.api.wire;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;

/**
 * Typed reads of request body fields with the range rules of API.md §3.5. Every violation is a
 * {@link BodyException}: a structural problem, answered 400.
 */
public final class Fields {
  private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
  private final Format format;
  private final String prefix;

  /** @param prefix names the enclosing object in messages, e.g. "backoff." */
  public Fields(Format format, String prefix) {
    this.format = format;
    this.prefix = prefix;
  }

  public Fields nested(String name) {
    return new Fields(format, prefix + name + ".");
  }

  public BodyException error(String detail) {
    return new BodyException(format, detail);
  }

  public JsonNode object(JsonNode node, String what) {
    if (node == null || !node.isObject()) {
      throw error("expected " + what + " to be an object");
    }
    return node;
  }

  public JsonNode required(JsonNode parent, String name) {
    JsonNode value = parent.get(name);
    if (value == null) {
      throw error("missing field `" + prefix + name + "`");
    }
    return value;
  }

  /** True when the field is absent or null: optional fields treat both as "not given". */
  public static boolean absent(JsonNode parent, String name) {
    JsonNode value = parent.get(name);
    return value == null || value.isNull();
  }

  public String string(JsonNode parent, String name) {
    JsonNode value = required(parent, name);
    if (!value.isTextual()) {
      throw error("`" + prefix + name + "` must be a string");
    }
    return value.textValue();
  }

  public boolean bool(JsonNode parent, String name) {
    JsonNode value = required(parent, name);
    if (!value.isBoolean()) {
      throw error("`" + prefix + name + "` must be a boolean");
    }
    return value.booleanValue();
  }

  /** An unsigned integer no greater than {@code max}. */
  public long unsigned(JsonNode parent, String name, long max) {
    JsonNode value = required(parent, name);
    if (!value.isIntegralNumber()) {
      throw error("`" + prefix + name + "` must be a non-negative integer");
    }
    BigInteger number = value.bigIntegerValue();
    if (number.signum() < 0 || number.compareTo(BigInteger.valueOf(max)) > 0) {
      throw error("`" + prefix + name + "` out of range (0 to " + max + ")");
    }
    return number.longValueExact();
  }

  /**
   * An unsigned 64-bit integer (timestamps, durations). Values beyond {@link Long#MAX_VALUE} are
   * accepted and saturate, since they already mean "never" in practice.
   */
  public long u64(JsonNode parent, String name) {
    JsonNode value = required(parent, name);
    if (!value.isIntegralNumber()) {
      throw error("`" + prefix + name + "` must be a non-negative integer");
    }
    BigInteger number = value.bigIntegerValue();
    if (number.signum() < 0 || number.compareTo(U64_MAX) > 0) {
      throw error("`" + prefix + name + "` out of range (0 to " + U64_MAX + ")");
    }
    return number.bitLength() > 63 ? Long.MAX_VALUE : number.longValue();
  }

  public float float32(JsonNode parent, String name) {
    JsonNode value = required(parent, name);
    if (!value.isNumber()) {
      throw error("`" + prefix + name + "` must be a number");
    }
    double number = value.doubleValue();
    if (Double.isNaN(number) || Math.abs(number) > Float.MAX_VALUE) {
      throw error("`" + prefix + name + "` out of range for a 32-bit float");
    }
    return (float) number;
  }
}

package io.sluice.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.api.wire.Format;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Request inputs for the parser fuzz tests, drawn from a {@link Random}: body trees shaped like a
 * request (its field names, each with a plausible or a random value), byte-level mutations of
 * encoded bodies, and raw query strings and paths. Plausible values sit on the edges the parsers
 * check: number ranges, name rules, cron and jq syntax, malformed text. jq snippets avoid
 * unbounded work (large ranges, string repetition), which would make a run's length depend on
 * its seed.
 */
public final class FuzzInputs {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  /** What a field holds: a leaf kind, an object of named fields, or an array of one shape. */
  public sealed interface Shape {}

  public enum Leaf implements Shape {
    NAME, TEXT, INT, FLOAT, BOOL, CRON, ZONE, JQ, SCOPE, STRATEGY
  }

  public record Obj(Map<String, Shape> fields) implements Shape {}

  public record Arr(Shape element) implements Shape {}

  public static final Obj BACKOFF = new Obj(Map.of("base_ms", Leaf.INT, "exponent", Leaf.FLOAT,
      "jitter_ms", Leaf.INT));
  public static final Obj RETENTION = new Obj(Map.of("completed_ms", Leaf.INT,
      "dead_ms", Leaf.INT));
  public static final Obj STRATEGY = new Obj(Map.of("type", Leaf.STRATEGY,
      "duration_ms", Leaf.INT, "burst", Leaf.INT));
  public static final Obj POLICY = new Obj(Map.of("allocation", Leaf.INT,
      "strategy", STRATEGY));
  public static final Obj BINDING = new Obj(Map.of("key", Leaf.NAME, "cost", Leaf.INT,
      "create_with", POLICY));
  public static final Obj JOB = new Obj(Map.ofEntries(
      Map.entry("type", Leaf.NAME), Map.entry("queue", Leaf.NAME), Map.entry("payload", Leaf.TEXT),
      Map.entry("priority", Leaf.INT), Map.entry("ready_at", Leaf.INT),
      Map.entry("retry_limit", Leaf.INT), Map.entry("backoff", BACKOFF),
      Map.entry("retention", RETENTION), Map.entry("unique_key", Leaf.TEXT),
      Map.entry("unique_while", Leaf.SCOPE),
      Map.entry("batch", new Obj(Map.of("key", Leaf.TEXT, "when", Leaf.JQ, "fold", Leaf.JQ))),
      Map.entry("budgets", new Arr(BINDING))));
  public static final Obj BULK = new Obj(Map.of("jobs", new Arr(JOB)));
  public static final Obj PATCH = new Obj(Map.of("queue", Leaf.NAME, "priority", Leaf.INT,
      "ready_at", Leaf.INT, "retry_limit", Leaf.INT, "backoff", BACKOFF, "retention", RETENTION));
  public static final Obj ENTRY = new Obj(Map.of("name", Leaf.NAME, "expression", Leaf.CRON,
      "timezone", Leaf.ZONE, "paused", Leaf.BOOL, "job", JOB));
  public static final Obj GROUP = new Obj(Map.of("paused", Leaf.BOOL, "timezone", Leaf.ZONE,
      "entries", new Arr(ENTRY)));
  public static final Obj BINDINGS = new Obj(Map.of("budgets", new Arr(BINDING)));
  public static final Obj COST = new Obj(Map.of("cost", Leaf.INT));
  public static final Obj FAILURE = new Obj(Map.of("message", Leaf.TEXT, "error_type",
      Leaf.TEXT, "backtrace", Leaf.TEXT, "retry_at", Leaf.INT, "kill", Leaf.BOOL));
  public static final Obj ACK = new Obj(Map.of("ids", new Arr(Leaf.TEXT)));

  private static final List<String> NAMES = List.of("q", "emails", "", " ", "a,b", "a\0b", "x*",
      "?", "[", "}", "\\", "a/b", "\u00e9", "\uD83D\uDE00", "\uFFFF", "\u0085", "job-1",
      "a".repeat(300));
  private static final List<Object> NUMBERS = List.of(0, 1, -1, 2, 1000, 32768, 65535, 65536,
      4294967295L, 4294967296L, Long.MAX_VALUE, Long.MIN_VALUE, U64_MAX,
      U64_MAX.add(BigInteger.ONE),
      new BigDecimal("1.5"), new BigDecimal("-0.0"), new BigDecimal("1e40"),
      new BigDecimal("3.4028236e38"), new BigDecimal("1e-50"));
  private static final List<String> CRONS = List.of("* * * * *", "0 0 1 1 *", "*/15 * * * *",
      "0 0 * * MON-FRI", "0 0 L * *", "0 0 15W * *", "0 0 * * 5#3", "0 0 * * 5L", "@daily",
      "@yearly", "@hourly", "0 0 30 2 *", "0 0 31 * *", "* * * * * *", "*/0 * * * *",
      "60 * * * *", "1-5/2 * * * *", "0 0 ? * *", "0 0 * * FRI-SUN", "5-1 * * * *", "L W # @",
      "0 0 32 * *", "0 0 0W * *", "0 0 * * 8", "0 0 * * 7#6", "", " ", "@every 5m",
      "99999999999999999999 * * * *", "0 0 1 JAN-DEC/3 *", "0 0 1-31/31 * *");
  private static final List<String> ZONES = List.of("UTC", "Europe/Rome", "America/New_York",
      "+02:00", "+2", "-18:00", "+18:01", "Z", "GMT+25", "UTC+99:00", "Nowhere/City", "", "local",
      "SystemV/EST5", "Etc/GMT-14");
  private static final List<String> JQ = List.of(".", "true", "false", "null", "$existing",
      "$new", "$existing + $new", ".a", ".a.b[0]", "[.[]]", "error(\"x\")", "empty",
      "(1, 2)", "if . then 1 else 2 end", "$missing", "input", "repeat", "def f: 1; f",
      "((", "\"\\(1)", "@base64d", "tojson | fromjson", "[limit(2; .[]?)]", ". as $x | $x",
      "{a: 1} | keys", "ltrimstr(1)", "test(\"(\")", "splits(\"x\")", "getpath([\"a\", 0])",
      "def f: f; f", "def f: 1 + f; f");
  private static final List<String> SCOPES = List.of("queued", "active", "exists", "", "QUEUED",
      "never");
  private static final List<String> STRATEGIES = List.of("while_in_flight", "time_based", "",
      "rate", "WHILE_IN_FLIGHT");
  private static final List<String> TEXTS = List.of("", "x", "k-1", "\uD83D\uDE00", "\u0000",
      "\"", "\\u", "line\nbreak");

  /** Bytes and snippets that break or bend JSON, MessagePack and UTF-8 when spliced in. */
  private static final List<byte[]> SNIPPETS = List.of(bytes("\\ud800"), bytes("\\udc00"),
      bytes("\\ud83d\\ude00"), bytes("\\u0000"), bytes("\""), bytes("\\"), bytes("{"), bytes("}"),
      bytes("["), bytes("]"), bytes(","), bytes(":"), bytes("null"), bytes("1e999"), bytes("-0"),
      bytes("99999999999999999999999"), bytes(",\"x\":"), hex("c0af"), hex("eda080"),
      hex("f4908080"), hex("e282"), hex("f09f9880"), hex("ff"), hex("80"), hex("c4"), hex("c7"),
      hex("d9"), hex("dc"), hex("de"), hex("cf"), hex("d3"), hex("cb"), hex("c0"), hex("c3"),
      hex("dbffffffff"), hex("dd7fffffff"), hex("ba"), hex("00"));
  private static final List<String> QUERY_NAMES = List.of("id", "queue", "type", "status",
      "budgets.key", "priority", "ready_at", "attempts", "filter", "order", "limit", "from",
      "prefetch", "Queue", "x", "", "queue[]");
  private static final List<String> QUERY_PIECES = List.of("ready", "scheduled", "in_flight",
      "completed", "dead", "x", "a,b", ",", ",,", "..", "1..2", "5..", "..9", "9..1", "0",
      "65535", "65536", "18446744073709551615", "18446744073709551616", "-1", "1.5", "asc",
      "desc", "2000", "2001", "03fvmame0wyuiexbc2033jby2", "zzzzzzzzzzzzzzzzzzzzzzzzz",
      "03FVMAME0WYUIEXBC2033JBY2", ".a", ".a == 1", "((", "%ZZ", "%", "%2", "%C0%AF",
      "%ED%A0%80", "%F4%90%80%80", "%E2%82", "%F0%9F%98%80", "%2C", "%25", "+", "%2B", "=",
      "\u00C0\u00AF", "\u00F0\u009F\u0098\u0080", "\u00e9", "\u0100", "%00",
      "def%20f:%20f%3B%20f", "def%20f:%201%20%2B%20f%3B%20f", "%2Ea%20%3D%3D%201");

  private final Random random;

  public FuzzInputs(Random random) {
    this.random = random;
  }

  private static byte[] bytes(String ascii) {
    return ascii.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  // ---- bodies --------------------------------------------------------------------------------

  /** A body for {@code shape}: most fields present, with plausible or random values. */
  public JsonNode body(Obj shape) {
    return random.nextInt(20) == 0 ? any(2) : object(shape, 0);
  }

  private ObjectNode object(Obj shape, int depth) {
    ObjectNode object = NODES.objectNode();
    for (Map.Entry<String, Shape> field : shape.fields().entrySet()) {
      if (random.nextInt(10) < 7) {
        object.set(field.getKey(), random.nextInt(10) < 8
            ? value(field.getValue(), depth + 1) : any(2));
      }
    }
    if (random.nextInt(5) == 0) {
      object.set(pick(NAMES), any(2));
    }
    return object;
  }

  private JsonNode value(Shape shape, int depth) {
    if (shape instanceof Obj obj) {
      return depth > 4 ? NODES.objectNode() : object(obj, depth);
    }
    if (shape instanceof Arr arr) {
      ArrayNode array = NODES.arrayNode();
      int size = random.nextInt(depth > 2 ? 2 : 4);
      for (int i = 0; i < size; i++) {
        array.add(value(arr.element(), depth + 1));
      }
      return array;
    }
    return switch ((Leaf) shape) {
      case NAME -> NODES.textNode(pick(NAMES));
      case TEXT -> random.nextBoolean() ? NODES.textNode(pick(TEXTS)) : any(3);
      case INT, FLOAT -> number(pick(NUMBERS));
      case BOOL -> NODES.booleanNode(random.nextBoolean());
      case CRON -> NODES.textNode(pick(CRONS));
      case ZONE -> NODES.textNode(pick(ZONES));
      case JQ -> NODES.textNode(pick(JQ));
      case SCOPE -> NODES.textNode(pick(SCOPES));
      case STRATEGY -> NODES.textNode(pick(STRATEGIES));
    };
  }

  private static JsonNode number(Object value) {
    if (value instanceof Integer i) {
      return NODES.numberNode(i);
    }
    if (value instanceof Long l) {
      return NODES.numberNode(l);
    }
    if (value instanceof BigInteger b) {
      return NODES.numberNode(b);
    }
    return NODES.numberNode((BigDecimal) value);
  }

  /** Any JSON value, nested at most {@code depth} more levels. */
  private JsonNode any(int depth) {
    int kind = random.nextInt(depth > 0 ? 7 : 5);
    return switch (kind) {
      case 0 -> NODES.nullNode();
      case 1 -> NODES.booleanNode(random.nextBoolean());
      case 2 -> number(pick(NUMBERS));
      case 3 -> NODES.textNode(pick(TEXTS));
      case 4 -> NODES.textNode(pick(NAMES));
      case 5 -> {
        ArrayNode array = NODES.arrayNode();
        for (int i = random.nextInt(3); i > 0; i--) {
          array.add(any(depth - 1));
        }
        yield array;
      }
      default -> {
        ObjectNode object = NODES.objectNode();
        for (int i = random.nextInt(3); i > 0; i--) {
          object.set(pick(NAMES), any(depth - 1));
        }
        yield object;
      }
    };
  }

  /**
   * The body in {@code format}. MessagePack has neither integers beyond 64 bits nor decimals, so
   * those become doubles there.
   */
  public static byte[] encode(Format format, JsonNode body) {
    try {
      return format.mapper().writeValueAsBytes(format == Format.MSGPACK ? packable(body) : body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode packable(JsonNode node) {
    if ((node.isBigInteger() && node.bigIntegerValue().bitLength() > 64) || node.isBigDecimal()) {
      return NODES.numberNode(node.doubleValue());
    }
    if (node.isContainerNode()) {
      JsonNode copy = node.deepCopy();
      copy.fields().forEachRemaining(field -> ((ObjectNode) copy).set(field.getKey(),
          packable(field.getValue())));
      for (int i = 0; copy.isArray() && i < copy.size(); i++) {
        ((ArrayNode) copy).set(i, packable(copy.get(i)));
      }
      return copy;
    }
    return node;
  }

  /** {@code bytes} after one to three random mutations, or now and then bytes of pure noise. */
  public byte[] mutate(byte[] bytes) {
    if (random.nextInt(50) == 0) {
      byte[] noise = new byte[random.nextInt(64)];
      random.nextBytes(noise);
      return noise;
    }
    byte[] current = bytes;
    for (int n = 1 + random.nextInt(3); n > 0; n--) {
      current = mutateOnce(current);
    }
    return current;
  }

  private byte[] mutateOnce(byte[] bytes) {
    int at = bytes.length == 0 ? 0 : random.nextInt(bytes.length);
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length + 16);
    switch (random.nextInt(6)) {
      case 0 -> { // overwrite one byte
        byte[] copy = bytes.clone();
        if (copy.length > 0) {
          copy[at] = random.nextBoolean() ? (byte) random.nextInt(256) : pick(SNIPPETS)[0];
        }
        return copy;
      }
      case 1 -> { // splice in a snippet
        out.write(bytes, 0, at);
        out.writeBytes(pick(SNIPPETS));
        out.write(bytes, at, bytes.length - at);
      }
      case 2 -> { // drop a range
        int end = Math.min(bytes.length, at + 1 + random.nextInt(8));
        out.write(bytes, 0, at);
        out.write(bytes, end, bytes.length - end);
      }
      case 3 -> { // repeat a range
        int end = Math.min(bytes.length, at + 1 + random.nextInt(16));
        out.write(bytes, 0, end);
        out.write(bytes, at, end - at);
        out.write(bytes, end, bytes.length - end);
      }
      case 4 -> out.write(bytes, 0, at); // truncate
      default -> { // flip one bit
        byte[] copy = bytes.clone();
        if (copy.length > 0) {
          copy[at] ^= (byte) (1 << random.nextInt(8));
        }
        return copy;
      }
    }
    return out.toByteArray();
  }

  // ---- request targets -----------------------------------------------------------------------

  /** A raw query string (without {@code ?}) as a client or an attacker might send it. */
  public String query() {
    StringBuilder query = new StringBuilder();
    for (int pairs = random.nextInt(5); pairs > 0; pairs--) {
      if (query.length() > 0) {
        query.append(random.nextInt(8) == 0 ? ";" : "&");
      }
      query.append(random.nextInt(10) == 0 ? pick(QUERY_PIECES) : pick(QUERY_NAMES));
      if (random.nextInt(8) != 0) {
        query.append('=');
        for (int pieces = random.nextInt(4); pieces > 0; pieces--) {
          query.append(pick(QUERY_PIECES));
        }
      }
    }
    return query.toString();
  }

  /** One path segment as sent: a name, an escape, a malformed one, an id-like string. */
  public String segment() {
    return pick(QUERY_PIECES);
  }

  /** A raw request path of a few segments, some escaped, some malformed. */
  public String path() {
    StringBuilder path = new StringBuilder(random.nextInt(20) == 0 ? "" : "/");
    for (int segments = random.nextInt(5); segments > 0; segments--) {
      path.append(segment()).append(random.nextInt(4) == 0 ? "" : "/");
    }
    return path.toString();
  }
}

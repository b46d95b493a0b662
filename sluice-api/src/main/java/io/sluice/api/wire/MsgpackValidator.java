package io.sluice.api.wire;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Rejects MessagePack documents outside the JSON data model: {@code bin} and {@code ext} values
 * and non-string map keys (API.md §3.2), and strings (keys included) that are not strict UTF-8
 * ({@link Utf8}), which msgpack-jackson would otherwise decode with replacement characters. Walks
 * the bytes without building values.
 */
public final class MsgpackValidator {
  private MsgpackValidator() {}

  /**
   * Climbs out of the walk from a string that is not UTF-8; each level it leaves adds its key or
   * index, so the path costs nothing unless a body fails.
   */
  private static final class MalformedString extends RuntimeException {
    final int offset;
    final boolean fieldName;
    /** Keys and indexes from the root down; indexes rendered {@code [i]}. */
    final Deque<String> path = new ArrayDeque<>();

    MalformedString(int offset, boolean fieldName) {
      super(null, null, false, false);
      this.offset = offset;
      this.fieldName = fieldName;
    }

    String describe() {
      StringBuilder rendered = new StringBuilder();
      for (String step : path) {
        if (step.startsWith("[")) {
          rendered.append(step);
        } else {
          MalformedText.appendName(rendered, step);
        }
      }
      return MalformedText.describe(MalformedText.BAD_UTF8, rendered.toString(), fieldName,
          offset);
    }
  }

  /** Throws a {@link BodyException} naming the first offending element. */
  public static void check(byte[] document) {
    try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(document)) {
      if (!unpacker.hasNext()) {
        throw new BodyException(Format.MSGPACK, "empty body");
      }
      checkValue(unpacker, document, 0);
      if (unpacker.hasNext()) {
        throw new BodyException(Format.MSGPACK, "trailing data after the document");
      }
    } catch (MalformedString e) {
      throw new BodyException(Format.MSGPACK, e.describe());
    } catch (IOException | RuntimeException e) {
      if (e instanceof BodyException body) {
        throw body;
      }
      throw new BodyException(Format.MSGPACK, String.valueOf(e.getMessage()));
    }
  }

  private static void checkValue(MessageUnpacker unpacker, byte[] document, int depth)
      throws IOException {
    if (depth > 512) {
      throw new BodyException(Format.MSGPACK, "nesting too deep");
    }
    MessageFormat format = unpacker.getNextFormat();
    ValueType type = format.getValueType();
    switch (type) {
      case BINARY -> throw new BodyException(Format.MSGPACK, "bin values are not supported");
      case EXTENSION -> throw new BodyException(Format.MSGPACK, "ext values are not supported");
      case STRING -> checkString(unpacker, document, false);
      case ARRAY -> {
        int size = unpacker.unpackArrayHeader();
        for (int i = 0; i < size; i++) {
          try {
            checkValue(unpacker, document, depth + 1);
          } catch (MalformedString e) {
            e.path.addFirst("[" + i + "]");
            throw e;
          }
        }
      }
      case MAP -> {
        int size = unpacker.unpackMapHeader();
        for (int i = 0; i < size; i++) {
          if (unpacker.getNextFormat().getValueType() != ValueType.STRING) {
            throw new BodyException(Format.MSGPACK, "map keys must be strings");
          }
          int keyLength = checkString(unpacker, document, true);
          int keyEnd = (int) unpacker.getTotalReadBytes();
          try {
            checkValue(unpacker, document, depth + 1);
          } catch (MalformedString e) {
            e.path.addFirst(new String(document, keyEnd - keyLength, keyLength,
                StandardCharsets.UTF_8));
            throw e;
          }
        }
      }
      default -> unpacker.skipValue();
    }
  }

  /**
   * Skips a string whose bytes must be strict UTF-8, without copying it; returns the length in
   * bytes of its content.
   */
  private static int checkString(MessageUnpacker unpacker, byte[] document, boolean fieldName)
      throws IOException {
    int start = (int) unpacker.getTotalReadBytes();
    int headerBytes = switch (unpacker.getNextFormat()) {
      case FIXSTR -> 1;
      case STR8 -> 2;
      case STR16 -> 3;
      default -> 5; // STR32
    };
    unpacker.skipValue(); // throws if the document ends first
    int end = (int) unpacker.getTotalReadBytes();
    int at = Utf8.malformedAt(document, start + headerBytes, end);
    if (at >= 0) {
      throw new MalformedString(at, fieldName);
    }
    return end - start - headerBytes;
  }
}

package io.sluice.api.wire;

import java.io.IOException;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Rejects MessagePack documents outside the JSON data model: {@code bin} and {@code ext} values
 * and non-string map keys (API.md §3.2). Walks the bytes without building values.
 */
public final class MsgpackValidator {
  private MsgpackValidator() {}

  /** Throws a {@link BodyException} naming the first offending element. */
  public static void check(byte[] document) {
    try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(document)) {
      if (!unpacker.hasNext()) {
        throw new BodyException(Format.MSGPACK, "empty body");
      }
      checkValue(unpacker, 0);
      if (unpacker.hasNext()) {
        throw new BodyException(Format.MSGPACK, "trailing data after the document");
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof BodyException body) {
        throw body;
      }
      throw new BodyException(Format.MSGPACK, String.valueOf(e.getMessage()));
    }
  }

  private static void checkValue(MessageUnpacker unpacker, int depth) throws IOException {
    if (depth > 512) {
      throw new BodyException(Format.MSGPACK, "nesting too deep");
    }
    MessageFormat format = unpacker.getNextFormat();
    ValueType type = format.getValueType();
    switch (type) {
      case BINARY -> throw new BodyException(Format.MSGPACK, "bin values are not supported");
      case EXTENSION -> throw new BodyException(Format.MSGPACK, "ext values are not supported");
      case ARRAY -> {
        int size = unpacker.unpackArrayHeader();
        for (int i = 0; i < size; i++) {
          checkValue(unpacker, depth + 1);
        }
      }
      case MAP -> {
        int size = unpacker.unpackMapHeader();
        for (int i = 0; i < size; i++) {
          if (unpacker.getNextFormat().getValueType() != ValueType.STRING) {
            throw new BodyException(Format.MSGPACK, "map keys must be strings");
          }
          unpacker.skipValue();
          checkValue(unpacker, depth + 1);
        }
      }
      default -> unpacker.skipValue();
    }
  }
}

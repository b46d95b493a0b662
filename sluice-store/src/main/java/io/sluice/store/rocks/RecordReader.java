package io.sluice.store.rocks;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Reads back what {@link RecordWriter} wrote, in the same order. */
final class RecordReader {
  private final ByteBuffer buffer;

  RecordReader(byte[] bytes) {
    this.buffer = ByteBuffer.wrap(bytes);
  }

  int readByte() {
    return buffer.get() & 0xFF;
  }

  int readInt() {
    return buffer.getInt();
  }

  long readLong() {
    return buffer.getLong();
  }

  float readFloat() {
    return buffer.getFloat();
  }

  String readString() {
    int length = buffer.getInt();
    String value = new String(buffer.array(), buffer.position(), length, StandardCharsets.UTF_8);
    buffer.position(buffer.position() + length);
    return value;
  }

  byte[] readBytes() {
    byte[] value = new byte[buffer.getInt()];
    buffer.get(value);
    return value;
  }

  String readOptionalString() {
    return readByte() == 0 ? null : readString();
  }
}

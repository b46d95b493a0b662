package io.sluice.store.rocks;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Appends primitive fields to a growing byte array; strings are length-prefixed UTF-8. */
final class RecordWriter {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
  private final DataOutputStream out = new DataOutputStream(bytes);

  RecordWriter writeByte(int value) {
    return io(() -> out.writeByte(value));
  }

  RecordWriter writeInt(int value) {
    return io(() -> out.writeInt(value));
  }

  RecordWriter writeLong(long value) {
    return io(() -> out.writeLong(value));
  }

  RecordWriter writeFloat(float value) {
    return io(() -> out.writeFloat(value));
  }

  RecordWriter writeString(String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    return io(() -> {
      out.writeInt(utf8.length);
      out.write(utf8);
    });
  }

  /** A presence byte, then the string if present. */
  RecordWriter writeOptionalString(String value) {
    writeByte(value == null ? 0 : 1);
    return value == null ? this : writeString(value);
  }

  byte[] toByteArray() {
    return bytes.toByteArray();
  }

  private interface IoAction {
    void run() throws IOException;
  }

  private RecordWriter io(IoAction action) {
    try {
      action.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }
}

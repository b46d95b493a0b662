package io.sluice.store.rocks;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Appends primitive fields to a growing byte array, big-endian; strings are length-prefixed
 * UTF-8. The layout is what {@link java.io.DataOutputStream} writes, without its per-field locks
 * and calls: every job record goes through here on the engine thread. A writer can be
 * {@link #reset} and filled again, so a commit encodes its records one after another in one
 * array.
 */
final class RecordWriter {
  private byte[] bytes = new byte[128];
  private int length;

  RecordWriter writeByte(int value) {
    ensure(1);
    bytes[length++] = (byte) value;
    return this;
  }

  RecordWriter writeInt(int value) {
    ensure(4);
    bytes[length] = (byte) (value >>> 24);
    bytes[length + 1] = (byte) (value >>> 16);
    bytes[length + 2] = (byte) (value >>> 8);
    bytes[length + 3] = (byte) value;
    length += 4;
    return this;
  }

  RecordWriter writeLong(long value) {
    writeInt((int) (value >>> 32));
    return writeInt((int) value);
  }

  RecordWriter writeFloat(float value) {
    return writeInt(Float.floatToIntBits(value));
  }

  RecordWriter writeString(String value) {
    // Names are ASCII as a rule: written char by char, a string needs no encoded copy, and its
    // length in bytes is its length in chars. A char past ASCII starts it over as UTF-8.
    int start = length;
    int chars = value.length();
    writeInt(chars);
    ensure(chars);
    for (int i = 0; i < chars; i++) {
      char c = value.charAt(i);
      if (c >= 0x80) {
        length = start;
        return writeUtf8(value);
      }
      bytes[length++] = (byte) c;
    }
    return this;
  }

  private RecordWriter writeUtf8(String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    writeInt(utf8.length);
    ensure(utf8.length);
    System.arraycopy(utf8, 0, bytes, length, utf8.length);
    length += utf8.length;
    return this;
  }

  /** A length, then the bytes. */
  RecordWriter writeBytes(byte[] value) {
    writeInt(value.length);
    ensure(value.length);
    System.arraycopy(value, 0, bytes, length, value.length);
    length += value.length;
    return this;
  }

  /** A presence byte, then the string if present. */
  RecordWriter writeOptionalString(String value) {
    writeByte(value == null ? 0 : 1);
    return value == null ? this : writeString(value);
  }

  byte[] toByteArray() {
    return Arrays.copyOf(bytes, length);
  }

  /** Empties the writer, keeping its array. */
  RecordWriter reset() {
    length = 0;
    return this;
  }

  /** The array written to; its first {@link #length} bytes are the record. */
  byte[] array() {
    return bytes;
  }

  int length() {
    return length;
  }

  private void ensure(int extra) {
    if (length + extra > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + extra));
    }
  }
}

package io.sluice.api.wire;

import com.fasterxml.jackson.core.SerializableString;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * JSON text handed to a generator as a raw value, so that a byte-based generator copies its
 * bytes instead of decoding them into a string and encoding them back. The text is the first
 * {@link #utf8Length} bytes of {@link #utf8}; a raw value is never quoted.
 */
abstract class RawJson implements SerializableString {
  /** The stored JSON text in {@code utf8}, whole. */
  static RawJson of(byte[] utf8) {
    return new RawJson() {
      @Override
      byte[] utf8() {
        return utf8;
      }

      @Override
      int utf8Length() {
        return utf8.length;
      }
    };
  }

  /** The array holding the text, from its first byte. */
  abstract byte[] utf8();

  abstract int utf8Length();

  @Override
  public String getValue() {
    return new String(utf8(), 0, utf8Length(), StandardCharsets.UTF_8);
  }

  @Override
  public int charLength() {
    return getValue().length();
  }

  @Override
  public byte[] asUnquotedUTF8() {
    byte[] utf8 = utf8();
    return utf8.length == utf8Length() ? utf8 : Arrays.copyOf(utf8, utf8Length());
  }

  @Override
  public int appendUnquotedUTF8(byte[] buffer, int offset) {
    int length = utf8Length();
    if (offset + length > buffer.length) {
      return -1;
    }
    System.arraycopy(utf8(), 0, buffer, offset, length);
    return length;
  }

  @Override
  public int appendUnquoted(char[] buffer, int offset) {
    String value = getValue();
    if (offset + value.length() > buffer.length) {
      return -1;
    }
    value.getChars(0, value.length(), buffer, offset);
    return value.length();
  }

  @Override
  public int writeUnquotedUTF8(OutputStream out) throws IOException {
    out.write(utf8(), 0, utf8Length());
    return utf8Length();
  }

  @Override
  public int putUnquotedUTF8(ByteBuffer buffer) {
    if (buffer.remaining() < utf8Length()) {
      return -1;
    }
    buffer.put(utf8(), 0, utf8Length());
    return utf8Length();
  }

  @Override
  public char[] asQuotedChars() {
    throw new UnsupportedOperationException("raw JSON is never quoted");
  }

  @Override
  public byte[] asQuotedUTF8() {
    throw new UnsupportedOperationException("raw JSON is never quoted");
  }

  @Override
  public int appendQuotedUTF8(byte[] buffer, int offset) {
    throw new UnsupportedOperationException("raw JSON is never quoted");
  }

  @Override
  public int appendQuoted(char[] buffer, int offset) {
    throw new UnsupportedOperationException("raw JSON is never quoted");
  }

  @Override
  public int writeQuotedUTF8(OutputStream out) {
    throw new UnsupportedOperationException("raw JSON is never quoted");
  }

  @Override
  public int putQuotedUTF8(ByteBuffer buffer) {
    throw new UnsupportedOperationException("raw JSON is never quoted");
  }
}

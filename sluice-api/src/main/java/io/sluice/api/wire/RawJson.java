package io.sluice.api.wire;

import com.fasterxml.jackson.core.SerializableString;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Stored JSON text handed to a generator as a raw value, so that a byte-based generator copies
 * its bytes instead of decoding them into a string and encoding them back.
 */
final class RawJson implements SerializableString {
  private final byte[] utf8;
  private String text;

  RawJson(byte[] utf8) {
    this.utf8 = utf8;
  }

  @Override
  public String getValue() {
    if (text == null) {
      text = new String(utf8, StandardCharsets.UTF_8);
    }
    return text;
  }

  @Override
  public int charLength() {
    return getValue().length();
  }

  @Override
  public char[] asQuotedChars() {
    throw new UnsupportedOperationException("raw JSON is never quoted");
  }

  @Override
  public byte[] asUnquotedUTF8() {
    return utf8;
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
  public int appendUnquotedUTF8(byte[] buffer, int offset) {
    if (offset + utf8.length > buffer.length) {
      return -1;
    }
    System.arraycopy(utf8, 0, buffer, offset, utf8.length);
    return utf8.length;
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
  public int writeQuotedUTF8(OutputStream out) {
    throw new UnsupportedOperationException("raw JSON is never quoted");
  }

  @Override
  public int writeUnquotedUTF8(OutputStream out) throws IOException {
    out.write(utf8);
    return utf8.length;
  }

  @Override
  public int putQuotedUTF8(ByteBuffer buffer) {
    throw new UnsupportedOperationException("raw JSON is never quoted");
  }

  @Override
  public int putUnquotedUTF8(ByteBuffer buffer) {
    if (buffer.remaining() < utf8.length) {
      return -1;
    }
    buffer.put(utf8);
    return utf8.length;
  }
}

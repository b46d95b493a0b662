package io.sluice.api.http;

import io.sluice.api.wire.Utf8;
import java.nio.charset.StandardCharsets;

/**
 * Decodes one component of a request target (a path segment, a query name or value): escapes
 * become bytes, and the bytes must be strict UTF-8 ({@link Utf8}). Netty hands the target over
 * one char per byte (ISO-8859-1), so raw non-ASCII bytes sent unescaped are read as UTF-8 along
 * with the escaped ones. Stateless; any thread.
 */
final class PercentDecoding {
  static final String BAD_ESCAPE = "malformed percent-encoding";
  static final String BAD_UTF8 = Utf8.MALFORMED;

  /** A component that cannot be decoded; the message says why. Carries no stack trace. */
  static final class Malformed extends RuntimeException {
    Malformed(String problem) {
      super(problem, null, false, false);
    }
  }

  private PercentDecoding() {}

  /** Decodes {@code raw}; with {@code plusIsSpace} (query strings) a {@code +} is a space. */
  static String decode(String raw, boolean plusIsSpace) {
    if (isPlain(raw, plusIsSpace)) {
      return raw;
    }
    byte[] bytes = new byte[raw.length()];
    int length = 0;
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        int high = i + 2 < raw.length() ? hexValue(raw.charAt(i + 1)) : -1;
        int low = high < 0 ? -1 : hexValue(raw.charAt(i + 2));
        if (low < 0) {
          throw new Malformed(BAD_ESCAPE);
        }
        bytes[length++] = (byte) (high << 4 | low);
        i += 2;
      } else if (c == '+' && plusIsSpace) {
        bytes[length++] = ' ';
      } else if (c > 0xFF) {
        throw new Malformed(BAD_UTF8); // not a byte: the transport decoded it some other way
      } else {
        bytes[length++] = (byte) c;
      }
    }
    if (Utf8.malformedAt(bytes, 0, length) >= 0) {
      throw new Malformed(BAD_UTF8);
    }
    return new String(bytes, 0, length, StandardCharsets.UTF_8);
  }

  private static boolean isPlain(String raw, boolean plusIsSpace) {
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%' || c > 0x7F || (c == '+' && plusIsSpace)) {
        return false;
      }
    }
    return true;
  }

  private static int hexValue(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}

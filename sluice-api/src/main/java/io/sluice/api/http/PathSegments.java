package io.sluice.api.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Splits a raw request path into percent-decoded segments ({@code %2F} stays inside one). */
public final class PathSegments {
  private PathSegments() {}

  /** Returns null when the path is not absolute or a segment has a malformed escape. */
  public static List<String> parse(String rawPath) {
    if (rawPath == null || !rawPath.startsWith("/")) {
      return null;
    }
    List<String> segments = new ArrayList<>();
    int start = 1;
    while (true) {
      int slash = rawPath.indexOf('/', start);
      String raw = slash < 0 ? rawPath.substring(start) : rawPath.substring(start, slash);
      String decoded = decode(raw);
      if (decoded == null) {
        return null;
      }
      segments.add(decoded);
      if (slash < 0) {
        return segments;
      }
      start = slash + 1;
    }
  }

  static String decode(String raw) {
    if (raw.indexOf('%') < 0) {
      return raw;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '%') {
        if (i + 2 >= raw.length()) {
          return null;
        }
        int hi = Character.digit(raw.charAt(i + 1), 16);
        int lo = Character.digit(raw.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          return null;
        }
        out.write(hi * 16 + lo);
        i += 2;
      } else {
        byte[] bytes = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        out.write(bytes, 0, bytes.length);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Percent-encodes a value for use as one path segment in a link. */
  public static String encode(String value) {
    StringBuilder out = new StringBuilder();
    for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xFF;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '_' || c == '.' || c == '~') {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
    return out.toString();
  }
}

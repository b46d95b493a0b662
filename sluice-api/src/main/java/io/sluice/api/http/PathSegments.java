package io.sluice.api.http;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a raw request path into percent-decoded segments ({@code %2F} stays inside one); each
 * segment's bytes must be strict UTF-8 ({@link PercentDecoding}).
 */
public final class PathSegments {
  private PathSegments() {}

  /**
   * The segments of a path. {@code malformed} is the index of the first segment that cannot be
   * decoded (its element is null) and {@code problem} says why; -1 and null when all can be.
   */
  public record Decoded(List<String> segments, int malformed, String problem) {}

  /** Returns null when the path is not absolute. */
  public static Decoded parse(String rawPath) {
    if (rawPath == null || !rawPath.startsWith("/")) {
      return null;
    }
    List<String> segments = new ArrayList<>();
    int malformed = -1;
    String problem = null;
    int start = 1;
    while (true) {
      int slash = rawPath.indexOf('/', start);
      String raw = slash < 0 ? rawPath.substring(start) : rawPath.substring(start, slash);
      String decoded = null;
      try {
        decoded = PercentDecoding.decode(raw, false);
      } catch (PercentDecoding.Malformed e) {
        if (malformed < 0) {
          malformed = segments.size();
          problem = e.getMessage();
        }
      }
      segments.add(decoded);
      if (slash < 0) {
        return new Decoded(segments, malformed, problem);
      }
      start = slash + 1;
    }
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

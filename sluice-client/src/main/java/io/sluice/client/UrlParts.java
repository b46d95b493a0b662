package io.sluice.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;

/** Percent-encoding of path segments and query strings. */
final class UrlParts {
  private UrlParts() {}

  /**
   * One path segment. Names may contain {@code /} (sent as {@code %2F}) and spaces, which must be
   * {@code %20} in a path where form encoding would give {@code +}.
   */
  static String segment(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** {@code ?a=1&b=2}, or the empty string without parameters. */
  static String query(Map<String, String> params) {
    if (params.isEmpty()) {
      return "";
    }
    StringJoiner joined = new StringJoiner("&", "?", "");
    params.forEach((name, value) -> joined.add(
        URLEncoder.encode(name, StandardCharsets.UTF_8) + "="
            + URLEncoder.encode(value, StandardCharsets.UTF_8)));
    return joined.toString();
  }
}

package io.sluice.engine;

import java.util.Comparator;

/** The naming rules shared by queues, types, cron names and budget keys (API.md §3.7). */
public final class Names {
  private static final String RESERVED = "*?[]{}\\";
  private static final boolean[] FORBIDDEN = forbiddenAscii();

  /** Sorts names in UTF-8 byte order, which is code point order (not UTF-16 order). */
  public static final Comparator<String> BYTE_ORDER = (a, b) -> {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  };

  private Names() {}

  /** The rule violation message for {@code value} as field {@code field}, or null if valid. */
  public static String violation(String field, String value) {
    if (value.isEmpty()) {
      return field + " must not be empty";
    }
    // One cheap pass first: this runs for every name of every enqueued job.
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < FORBIDDEN.length && FORBIDDEN[c]) {
        return describe(field, value);
      }
    }
    return null;
  }

  private static boolean[] forbiddenAscii() {
    boolean[] forbidden = new boolean[128];
    for (char c : (RESERVED + ",\0").toCharArray()) {
      forbidden[c] = true;
    }
    return forbidden;
  }

  private static String describe(String field, String value) {
    if (value.indexOf(',') >= 0) {
      return field + " must not contain ','";
    }
    if (value.indexOf('\0') >= 0) {
      return field + " must not contain null bytes";
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (RESERVED.indexOf(c) >= 0) {
        return field + " must not contain '" + c + "' (reserved)";
      }
    }
    throw new IllegalStateException("no rule broken by " + value);
  }
}

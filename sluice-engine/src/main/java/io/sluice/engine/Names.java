package io.sluice.engine;

/** The naming rules shared by queues, types, cron names and budget keys (API.md §3.7). */
public final class Names {
  private static final String RESERVED = "*?[]{}\\";

  private Names() {}

  /** The rule violation message for {@code value} as field {@code field}, or null if valid. */
  public static String violation(String field, String value) {
    if (value.isEmpty()) {
      return field + " must not be empty";
    }
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
    return null;
  }
}

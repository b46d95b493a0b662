package io.sluice.cli.top;

import java.time.Instant;
import java.util.Locale;

/** Numbers, durations, instants and bars as {@code sluice top} prints them, in plain ASCII. */
final class TextFormat {
  private TextFormat() {}

  /** {@code 1,234,567}. */
  static String count(long value) {
    return String.format(Locale.ROOT, "%,d", value);
  }

  /** {@code 850ms}, {@code 12.3s}, {@code 5m 03s}, {@code 2h 04m}, {@code 3d 04h}. */
  static String duration(long ms) {
    if (ms < 0) {
      return "-" + duration(-ms);
    }
    if (ms < 1_000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    long seconds = ms / 1000;
    if (seconds < 3600) {
      return String.format(Locale.ROOT, "%dm %02ds", seconds / 60, seconds % 60);
    }
    if (seconds < 86_400) {
      return String.format(Locale.ROOT, "%dh %02dm", seconds / 3600, seconds % 3600 / 60);
    }
    return String.format(Locale.ROOT, "%dd %02dh", seconds / 86_400, seconds % 86_400 / 3600);
  }

  /** An instant in full: ISO-8601 UTC with milliseconds; {@code -} for 0 (not set). */
  static String instant(long ms) {
    return ms == 0 ? "-" : Instant.ofEpochMilli(ms).toString();
  }

  /** {@code [#####-----]}: {@code part} of {@code whole} over {@code width} cells. */
  static String bar(long part, long whole, int width) {
    int filled = whole <= 0 ? 0 : (int) Math.round((double) width * Math.min(part, whole) / whole);
    return "[" + "#".repeat(filled) + "-".repeat(width - filled) + "]";
  }

  /** {@code text} padded with spaces to {@code width} (never cut). */
  static String pad(String text, int width) {
    return text.length() >= width ? text : text + " ".repeat(width - text.length());
  }

  /** {@code text} right-aligned in {@code width} (never cut). */
  static String padLeft(String text, int width) {
    return text.length() >= width ? text : " ".repeat(width - text.length()) + text;
  }
}

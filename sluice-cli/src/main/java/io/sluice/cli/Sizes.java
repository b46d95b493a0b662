package io.sluice.cli;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses byte sizes (CLI.md §1.2): a bare integer is bytes, else a number and a unit. */
public final class Sizes {
  private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]*)");
  private static final Map<String, Long> UNITS = Map.of(
      "", 1L, "b", 1L,
      "kb", 1000L, "mb", 1000L * 1000, "gb", 1000L * 1000 * 1000, "tb", 1000L * 1000 * 1000 * 1000,
      "kib", 1L << 10, "mib", 1L << 20, "gib", 1L << 30, "tib", 1L << 40);

  private Sizes() {}

  public static long parseBytes(String text, String option) {
    Matcher m = SIZE.matcher(text == null ? "" : text.trim());
    Long unit = m.matches() ? UNITS.get(m.group(2).toLowerCase(Locale.ROOT)) : null;
    if (unit == null) {
      throw new IllegalArgumentException("invalid size for " + option + ": '" + text
          + "' (examples: 268435456, 256MB, 1GiB)");
    }
    return new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unit)).longValue();
  }
}

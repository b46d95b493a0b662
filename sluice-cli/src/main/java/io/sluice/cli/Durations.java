package io.sluice.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses human durations (CLI.md §1.2): a bare integer is milliseconds; otherwise numbers with
 * units, optionally concatenated ({@code 1h30m}, {@code 12.5s}). Results saturate at
 * {@link Long#MAX_VALUE} so that "effectively forever" values such as {@code 90000000000y} work.
 */
public final class Durations {
  private static final Pattern BARE = Pattern.compile("\\d+");
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|sec|s|min|m|hr|h|d|w|M|y)");
  private static final BigDecimal DAY_MS = BigDecimal.valueOf(86_400_000L);
  private static final Map<String, BigDecimal> UNIT_MS = Map.ofEntries(
      Map.entry("ms", BigDecimal.ONE),
      Map.entry("s", BigDecimal.valueOf(1000)),
      Map.entry("sec", BigDecimal.valueOf(1000)),
      Map.entry("m", BigDecimal.valueOf(60_000)),
      Map.entry("min", BigDecimal.valueOf(60_000)),
      Map.entry("h", BigDecimal.valueOf(3_600_000)),
      Map.entry("hr", BigDecimal.valueOf(3_600_000)),
      Map.entry("d", DAY_MS),
      Map.entry("w", DAY_MS.multiply(BigDecimal.valueOf(7))),
      Map.entry("M", DAY_MS.multiply(new BigDecimal("30.44"))),
      Map.entry("y", DAY_MS.multiply(new BigDecimal("365.25"))));

  private Durations() {}

  public static long parseMs(String text, String option) {
    String value = text == null ? "" : text.trim();
    if (BARE.matcher(value).matches()) {
      return saturate(new BigDecimal(value));
    }
    Matcher part = PART.matcher(value);
    BigDecimal total = BigDecimal.ZERO;
    int position = 0;
    while (position < value.length() && part.find(position) && part.start() == position) {
      total = total.add(new BigDecimal(part.group(1)).multiply(UNIT_MS.get(part.group(2))));
      position = part.end();
    }
    if (value.isEmpty() || position != value.length()) {
      throw new IllegalArgumentException("invalid duration for " + option + ": '" + text
          + "' (examples: 1500, 3s, 12.5s, 1h30m, 7d)");
    }
    return saturate(total);
  }

  private static long saturate(BigDecimal ms) {
    BigDecimal whole = ms.setScale(0, RoundingMode.DOWN);
    return whole.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) >= 0
        ? Long.MAX_VALUE
        : whole.longValueExact();
  }
}

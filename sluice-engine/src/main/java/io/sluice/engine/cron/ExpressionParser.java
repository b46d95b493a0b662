package io.sluice.engine.cron;

import java.util.Locale;
import java.util.Map;

/** Turns expression text (5 or 6 fields, or an {@code @} alias) into a {@link WallClockPattern}. */
final class ExpressionParser {
  private static final Map<String, String> ALIASES = Map.of(
      "@yearly", "0 0 1 1 *",
      "@annually", "0 0 1 1 *",
      "@monthly", "0 0 1 * *",
      "@weekly", "0 0 * * 0",
      "@daily", "0 0 * * *",
      "@midnight", "0 0 * * *",
      "@hourly", "0 * * * *");
  private static final long SECOND_ZERO = 1L;

  private ExpressionParser() {}

  static WallClockPattern parse(String text) {
    String trimmed = text.strip();
    if (trimmed.isEmpty()) {
      throw new InvalidCronExpressionException("expression is empty");
    }
    if (trimmed.startsWith("@")) {
      String expansion = ALIASES.get(trimmed.toLowerCase(Locale.ROOT));
      if (expansion == null) {
        throw new InvalidCronExpressionException("unknown alias \"" + trimmed + "\"");
      }
      return parse(expansion);
    }
    String[] fields = trimmed.split("\\s+");
    if (fields.length != 5 && fields.length != 6) {
      throw new InvalidCronExpressionException("expected 5 or 6 fields, got " + fields.length);
    }
    boolean withSeconds = fields.length == 6;
    int i = withSeconds ? 1 : 0;
    return new WallClockPattern(
        withSeconds ? FieldParser.parse(CronField.SECOND, fields[0]) : SECOND_ZERO,
        FieldParser.parse(CronField.MINUTE, fields[i]),
        FieldParser.parse(CronField.HOUR, fields[i + 1]),
        DayFilter.parse(fields[i + 2], fields[i + 4]),
        FieldParser.parse(CronField.MONTH, fields[i + 3]));
  }
}

package io.sluice.engine.cron;

import java.util.List;
import java.util.Locale;

/** The six positions of a cron expression, with the values and names each accepts. */
enum CronField {
  SECOND("second", 0, 59, List.of()),
  MINUTE("minute", 0, 59, List.of()),
  HOUR("hour", 0, 23, List.of()),
  DAY_OF_MONTH("day-of-month", 1, 31, List.of()),
  MONTH("month", 1, 12, List.of(
      "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")),
  /** 0 and 7 both mean Sunday. */
  DAY_OF_WEEK("day-of-week", 0, 7, List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"));

  final String label;
  final int min;
  final int max;
  /** Upper-case names; the name at index i stands for the value {@code min + i}. */
  private final List<String> names;

  CronField(String label, int min, int max, List<String> names) {
    this.label = label;
    this.min = min;
    this.max = max;
    this.names = names;
  }

  /** One value: a decimal number or, in month and day-of-week, a name in any case. */
  int value(String token) {
    int index = names.indexOf(token.toUpperCase(Locale.ROOT));
    if (index >= 0) {
      return min + index;
    }
    if (!isNumber(token)) {
      throw invalid("invalid value \"" + token + "\"");
    }
    // Longer numbers cannot fit any field, and would overflow parseInt.
    int value = token.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(token);
    if (value < min || value > max) {
      throw invalid(token + " is out of range " + min + "-" + max);
    }
    return value;
  }

  InvalidCronExpressionException invalid(String detail) {
    return new InvalidCronExpressionException(label + " field: " + detail);
  }

  static boolean isNumber(String token) {
    return !token.isEmpty() && token.chars().allMatch(c -> c >= '0' && c <= '9');
  }
}

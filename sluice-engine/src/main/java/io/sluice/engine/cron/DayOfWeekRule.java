package io.sluice.engine.cron;

import java.time.LocalDate;
import java.util.Locale;

/**
 * The day-of-week field: plain weekdays, {@code nL} (the month's last weekday n, e.g. {@code 5L}
 * = last Friday) and {@code n#k} (its k-th weekday n, e.g. {@code MON#2}). Weekdays are 0–6 from
 * Sunday; 7 is folded into 0.
 *
 * @param days bit d set when weekday d matches
 * @param lastInMonth bit d set for each {@code dL}
 * @param nth bit {@code 7 * (k - 1) + d} set for each {@code d#k}
 */
record DayOfWeekRule(int days, int lastInMonth, long nth) {
  private static final int MAX_OCCURRENCE = 5;

  static DayOfWeekRule parse(String text) {
    int days = 0;
    int lastInMonth = 0;
    long nth = 0;
    for (String item : text.split(",", -1)) {
      String upper = item.toUpperCase(Locale.ROOT);
      int hash = upper.indexOf('#');
      if (hash >= 0) {
        int weekday = weekday(item, upper.substring(0, hash));
        nth |= 1L << (7 * (occurrence(item, upper.substring(hash + 1)) - 1) + weekday);
      } else if (upper.endsWith("L")) {
        if (upper.length() == 1) {
          throw CronField.DAY_OF_WEEK.invalid("L needs a weekday, e.g. 5L");
        }
        lastInMonth |= 1 << weekday(item, upper.substring(0, upper.length() - 1));
      } else {
        long bits = FieldParser.parseItem(CronField.DAY_OF_WEEK, item);
        days |= (int) (bits | bits >>> 7) & 0x7f;
      }
    }
    return new DayOfWeekRule(days, lastInMonth, nth);
  }

  boolean matches(LocalDate date) {
    int weekday = date.getDayOfWeek().getValue() % 7;
    int day = date.getDayOfMonth();
    return (days & 1 << weekday) != 0
        || ((lastInMonth & 1 << weekday) != 0 && day + 7 > date.lengthOfMonth())
        || (nth & 1L << (7 * ((day - 1) / 7) + weekday)) != 0;
  }

  private static int weekday(String item, String token) {
    if (token.isEmpty()) {
      throw CronField.DAY_OF_WEEK.invalid("invalid item \"" + item + "\"");
    }
    return CronField.DAY_OF_WEEK.value(token) % 7;
  }

  private static int occurrence(String item, String token) {
    if (!CronField.isNumber(token)) {
      throw CronField.DAY_OF_WEEK.invalid("invalid item \"" + item + "\"");
    }
    int occurrence = token.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(token);
    if (occurrence < 1 || occurrence > MAX_OCCURRENCE) {
      throw CronField.DAY_OF_WEEK.invalid(
          "occurrence #" + token + " is out of range 1-" + MAX_OCCURRENCE);
    }
    return occurrence;
  }
}

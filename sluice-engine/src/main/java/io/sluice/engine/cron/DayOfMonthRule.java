package io.sluice.engine.cron;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.util.Locale;

/**
 * The day-of-month field: plain days, {@code L} (the month's last day), {@code LW} (its last
 * weekday) and {@code nW} (the weekday nearest day n). Items may be mixed in a list.
 *
 * @param days bit d set when day d matches
 * @param nearestWeekdays bit n set for each {@code nW}
 */
record DayOfMonthRule(long days, boolean lastDay, boolean lastWeekday, long nearestWeekdays) {

  static DayOfMonthRule parse(String text) {
    long days = 0;
    boolean lastDay = false;
    boolean lastWeekday = false;
    long nearestWeekdays = 0;
    for (String item : text.split(",", -1)) {
      String upper = item.toUpperCase(Locale.ROOT);
      if (upper.equals("L")) {
        lastDay = true;
      } else if (upper.equals("LW")) {
        lastWeekday = true;
      } else if (upper.endsWith("W")) {
        String day = upper.substring(0, upper.length() - 1);
        if (!CronField.isNumber(day)) {
          throw CronField.DAY_OF_MONTH.invalid("invalid item \"" + item + "\"");
        }
        nearestWeekdays |= 1L << CronField.DAY_OF_MONTH.value(day);
      } else {
        days |= FieldParser.parseItem(CronField.DAY_OF_MONTH, item);
      }
    }
    return new DayOfMonthRule(days, lastDay, lastWeekday, nearestWeekdays);
  }

  boolean matches(LocalDate date) {
    int day = date.getDayOfMonth();
    int length = date.lengthOfMonth();
    if ((days & 1L << day) != 0
        || (lastDay && day == length)
        || (lastWeekday && day == nearestWeekday(date, length))) {
      return true;
    }
    for (long rest = nearestWeekdays; rest != 0; rest &= rest - 1) {
      int n = Long.numberOfTrailingZeros(rest);
      if (n <= length && day == nearestWeekday(date, n)) {
        return true;
      }
    }
    return false;
  }

  /** The weekday nearest day {@code n} of {@code date}'s month, never leaving that month. */
  private static int nearestWeekday(LocalDate date, int n) {
    DayOfWeek dayOfWeek = date.withDayOfMonth(n).getDayOfWeek();
    if (dayOfWeek == DayOfWeek.SATURDAY) {
      return n == 1 ? 3 : n - 1;
    }
    if (dayOfWeek == DayOfWeek.SUNDAY) {
      return n == date.lengthOfMonth() ? n - 2 : n + 1;
    }
    return n;
  }
}

package io.sluice.engine.cron;

import java.time.LocalDate;

/**
 * Which dates match, combining day-of-month and day-of-week the classic cron way: when both are
 * restricted a date matches if either does; an unrestricted one ({@code *} or {@code ?}) defers
 * to the other.
 */
record DayFilter(DayOfMonthRule dayOfMonth, boolean dayOfMonthRestricted,
    DayOfWeekRule dayOfWeek, boolean dayOfWeekRestricted) {

  static DayFilter parse(String dayOfMonthText, String dayOfWeekText) {
    return new DayFilter(DayOfMonthRule.parse(dayOfMonthText), isRestricted(dayOfMonthText),
        DayOfWeekRule.parse(dayOfWeekText), isRestricted(dayOfWeekText));
  }

  boolean matches(LocalDate date) {
    if (dayOfMonthRestricted && dayOfWeekRestricted) {
      return dayOfMonth.matches(date) || dayOfWeek.matches(date);
    }
    if (dayOfMonthRestricted) {
      return dayOfMonth.matches(date);
    }
    return !dayOfWeekRestricted || dayOfWeek.matches(date);
  }

  /** Only a bare wildcard is unrestricted: {@code *}/2 or 1-31 count as restrictions. */
  private static boolean isRestricted(String text) {
    return !text.equals("*") && !text.equals("?");
  }
}

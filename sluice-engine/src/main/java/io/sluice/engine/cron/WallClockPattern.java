package io.sluice.engine.cron;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * A parsed cron expression as a pattern over wall-clock times, with no notion of zones. Time
 * fields are bit sets (bit v set when value v matches); 5-field expressions have {@code seconds ==
 * 1}, i.e. second 0 only.
 */
record WallClockPattern(long seconds, long minutes, long hours, DayFilter days, long months) {

  /**
   * The first matching wall-clock time at or after {@code from} (whole seconds), skipping whole
   * non-matching months, days, hours and minutes at a time; empty once the search passes the end
   * of {@code lastYear}.
   */
  Optional<LocalDateTime> firstAtOrAfter(LocalDateTime from, int lastYear) {
    LocalDateTime t = from;
    while (t.getYear() <= lastYear) {
      int month = nextValue(months, t.getMonthValue());
      if (month != t.getMonthValue()) {
        t = month < 0
            ? LocalDate.of(t.getYear() + 1, 1, 1).atStartOfDay()
            : LocalDate.of(t.getYear(), month, 1).atStartOfDay();
        continue;
      }
      if (!days.matches(t.toLocalDate())) {
        t = t.toLocalDate().plusDays(1).atStartOfDay();
        continue;
      }
      int hour = nextValue(hours, t.getHour());
      if (hour != t.getHour()) {
        t = hour < 0 ? t.toLocalDate().plusDays(1).atStartOfDay() : t.toLocalDate().atTime(hour, 0);
        continue;
      }
      int minute = nextValue(minutes, t.getMinute());
      if (minute != t.getMinute()) {
        t = minute < 0
            ? t.truncatedTo(ChronoUnit.HOURS).plusHours(1)
            : t.withMinute(minute).withSecond(0);
        continue;
      }
      int second = nextValue(seconds, t.getSecond());
      if (second < 0) {
        t = t.truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
        continue;
      }
      return Optional.of(t.withSecond(second));
    }
    return Optional.empty();
  }

  /** The smallest set bit at or above {@code from} (at most 59), or -1. */
  private static int nextValue(long bits, int from) {
    long candidates = bits & (-1L << from);
    return candidates == 0 ? -1 : Long.numberOfTrailingZeros(candidates);
  }
}

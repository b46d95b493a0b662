package io.sluice.engine.cron;

import static io.sluice.engine.cron.Occurrences.inUtc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Occurrence arithmetic in a zone without transitions (UTC); DST lives in its own test. */
class CronNextAfterTest {

  @Nested
  class StrictlyAfter {
    @Test
    void skipsAnOccurrenceExactlyAtTheStart() {
      assertThat(inUtc("5 * * * *", "2024-01-01T00:05", 1)).containsExactly("2024-01-01T01:05");
    }

    @Test
    void honoursFractionsOfASecond() {
      assertThat(inUtc("5 * * * *", "2024-01-01T00:04:59.999", 1))
          .containsExactly("2024-01-01T00:05");
      assertThat(inUtc("5 * * * *", "2024-01-01T00:05:00.001", 1))
          .containsExactly("2024-01-01T01:05");
      assertThat(inUtc("* * * * * *", "2024-01-01T00:05:00.5", 1))
          .containsExactly("2024-01-01T00:05:01");
    }
  }

  @Nested
  class Rollover {
    @Test
    void rollsMinutesIntoHoursDaysMonthsAndYears() {
      assertThat(inUtc("59 23 31 12 *", "2024-12-31T23:58", 2))
          .containsExactly("2024-12-31T23:59", "2025-12-31T23:59");
      assertThat(inUtc("0 0 1 * *", "2024-01-31T12:00", 2))
          .containsExactly("2024-02-01T00:00", "2024-03-01T00:00");
    }

    @Test
    void skipsMonthsTooShortForTheDay() {
      assertThat(inUtc("0 0 31 * *", "2024-01-31T00:00", 4)).containsExactly(
          "2024-03-31T00:00", "2024-05-31T00:00", "2024-07-31T00:00", "2024-08-31T00:00");
    }

    @Test
    void resetsLowerFieldsWhenAHigherOneAdvances() {
      assertThat(inUtc("15,45 9-10 * * *", "2024-01-01T10:50", 3))
          .containsExactly("2024-01-02T09:15", "2024-01-02T09:45", "2024-01-02T10:15");
    }
  }

  @Nested
  class Seconds {
    @Test
    void stepsThroughSecondsIntoTheNextMinute() {
      assertThat(inUtc("*/20 * * * * *", "2024-01-01T00:00:50", 3)).containsExactly(
          "2024-01-01T00:01", "2024-01-01T00:01:20", "2024-01-01T00:01:40");
    }

    @Test
    void rollsTheLastSecondOfTheYear() {
      assertThat(inUtc("59 59 23 31 12 *", "2024-12-31T23:59:59", 1))
          .containsExactly("2025-12-31T23:59:59");
    }

    @Test
    void firesEverySecond() {
      assertThat(inUtc("* * * * * *", "2024-02-29T23:59:58", 3)).containsExactly(
          "2024-02-29T23:59:59", "2024-03-01T00:00", "2024-03-01T00:00:01");
    }
  }

  @Nested
  class LeapYears {
    @Test
    void findsTheNextLeapDay() {
      assertThat(inUtc("0 0 29 2 *", "2024-03-01T00:00", 2))
          .containsExactly("2028-02-29T00:00", "2032-02-29T00:00");
    }

    @Test
    void findsALeapDayEightYearsAwayAcrossACenturyThatIsNotLeap() {
      assertThat(inUtc("0 0 29 2 *", "2096-03-01T00:00", 1)).containsExactly("2104-02-29T00:00");
    }

    @Test
    void lastDayOfFebruaryFollowsLeapYears() {
      assertThat(inUtc("0 0 L 2 *", "2023-01-01T00:00", 3))
          .containsExactly("2023-02-28T00:00", "2024-02-29T00:00", "2025-02-28T00:00");
    }

    @Test
    void findsAFifthMondayOfFebruaryDecadesAway() {
      // Only a leap February that starts on a Monday has one: 2016, then 2044.
      assertThat(inUtc("0 0 * 2 MON#5", "2016-03-01T00:00", 2))
          .containsExactly("2044-02-29T00:00", "2072-02-29T00:00");
    }
  }

  @Nested
  class DayOfMonthOrDayOfWeek {
    @Test
    void matchesEitherWhenBothAreRestricted() {
      // 2024-09-01 is a Sunday; Fridays fall on 6, 13, 20, 27, then 4, 11, 18 (the 13th a Sunday).
      assertThat(inUtc("0 0 13 * FRI", "2024-09-01T00:00", 8)).containsExactly(
          "2024-09-06T00:00", "2024-09-13T00:00", "2024-09-20T00:00", "2024-09-27T00:00",
          "2024-10-04T00:00", "2024-10-11T00:00", "2024-10-13T00:00", "2024-10-18T00:00");
    }

    @Test
    void usesOnlyDayOfMonthWhenDayOfWeekIsAWildcard() {
      assertThat(inUtc("0 0 13 * *", "2024-09-01T00:00", 2))
          .containsExactly("2024-09-13T00:00", "2024-10-13T00:00");
      assertThat(inUtc("0 0 13 * ?", "2024-09-01T00:00", 2))
          .containsExactly("2024-09-13T00:00", "2024-10-13T00:00");
    }

    @Test
    void usesOnlyDayOfWeekWhenDayOfMonthIsAWildcard() {
      assertThat(inUtc("0 0 ? * FRI", "2024-09-01T00:00", 2))
          .containsExactly("2024-09-06T00:00", "2024-09-13T00:00");
      assertThat(inUtc("0 0 * * FRI", "2024-09-01T00:00", 2))
          .containsExactly("2024-09-06T00:00", "2024-09-13T00:00");
    }

    @Test
    void countsASteppedStarAsARestriction() {
      // Days 1, 16, 31 or Mondays (2, 9, 16, 23, 30).
      assertThat(inUtc("0 0 */15 * MON", "2024-08-31T12:00", 7)).containsExactly(
          "2024-09-01T00:00", "2024-09-02T00:00", "2024-09-09T00:00", "2024-09-16T00:00",
          "2024-09-23T00:00", "2024-09-30T00:00", "2024-10-01T00:00");
    }

    @Test
    void appliesTheMonthToBothDayFields() {
      assertThat(inUtc("0 0 1 2 MON", "2024-01-01T00:00", 3))
          .containsExactly("2024-02-01T00:00", "2024-02-05T00:00", "2024-02-12T00:00");
    }
  }

  @Nested
  class LastDay {
    @Test
    void lastDayOfEachMonth() {
      assertThat(inUtc("0 0 L * *", "2024-01-15T00:00", 4)).containsExactly(
          "2024-01-31T00:00", "2024-02-29T00:00", "2024-03-31T00:00", "2024-04-30T00:00");
    }

    @Test
    void lastWeekdayOfEachMonth() {
      // 2024-03-31 and 2024-06-30 are Sundays.
      assertThat(inUtc("0 0 LW * *", "2024-03-01T00:00", 4)).containsExactly(
          "2024-03-29T00:00", "2024-04-30T00:00", "2024-05-31T00:00", "2024-06-28T00:00");
    }

    @Test
    void lastGivenWeekdayOfEachMonth() {
      for (String lastFriday : new String[] {"5L", "FRIL", "fril"}) {
        assertThat(inUtc("0 0 * * " + lastFriday, "2024-01-01T00:00", 4)).as(lastFriday)
            .containsExactly(
                "2024-01-26T00:00", "2024-02-23T00:00", "2024-03-29T00:00", "2024-04-26T00:00");
      }
    }

    @Test
    void mixesWithPlainDaysInAList() {
      assertThat(inUtc("0 0 L,15 * *", "2024-02-01T00:00", 3))
          .containsExactly("2024-02-15T00:00", "2024-02-29T00:00", "2024-03-15T00:00");
    }
  }

  @Nested
  class NearestWeekday {
    @Test
    void movesASaturdayBackAndASundayForward() {
      // 2024-05-15 is a Wednesday, 2024-06-15 a Saturday, 2024-09-15 a Sunday.
      assertThat(inUtc("0 0 15W 5,6,9 *", "2024-01-01T00:00", 3))
          .containsExactly("2024-05-15T00:00", "2024-06-14T00:00", "2024-09-16T00:00");
    }

    @Test
    void neverLeavesTheMonth() {
      // 2024-06-01 is a Saturday: the first weekday of June, not May 31.
      assertThat(inUtc("0 0 1W 6 *", "2024-05-01T00:00", 1)).containsExactly("2024-06-03T00:00");
      // 2024-03-31 is a Sunday: back to Friday the 29th, not April 1.
      assertThat(inUtc("0 0 31W 3 *", "2024-03-01T00:00", 1)).containsExactly("2024-03-29T00:00");
    }

    @Test
    void skipsMonthsWithoutTheDay() {
      // 2024-08-31 is a Saturday.
      assertThat(inUtc("0 0 31W * *", "2024-04-01T00:00", 3))
          .containsExactly("2024-05-31T00:00", "2024-07-31T00:00", "2024-08-30T00:00");
    }
  }

  @Nested
  class NthWeekday {
    @Test
    void secondMondayOfEachMonth() {
      assertThat(inUtc("0 0 * * MON#2", "2024-01-01T00:00", 3))
          .containsExactly("2024-01-08T00:00", "2024-02-12T00:00", "2024-03-11T00:00");
    }

    @Test
    void fifthFridayOnlyInMonthsThatHaveOne() {
      assertThat(inUtc("0 0 * * 5#5", "2024-01-01T00:00", 4)).containsExactly(
          "2024-03-29T00:00", "2024-05-31T00:00", "2024-08-30T00:00", "2024-11-29T00:00");
    }

    @Test
    void combinesInAList() {
      // First Saturday and first Sunday (written 7) of June 2024.
      assertThat(inUtc("0 0 * 6 6#1,7#1", "2024-01-01T00:00", 2))
          .containsExactly("2024-06-01T00:00", "2024-06-02T00:00");
    }
  }

  @Nested
  class NoFutureOccurrence {
    @ParameterizedTest
    @ValueSource(strings = {
        "0 0 30 2 *", "0 0 31 2,4,6,9,11 *", "0 0 30W 2 *", "59 59 23 31 4 *", "* * * 31 2 *"})
    void returnsEmptyQuickly(String expression) {
      CronExpression cron = CronExpression.parse(expression);
      assertTimeoutPreemptively(Duration.ofSeconds(2), () ->
          assertThat(cron.nextAfter(Instant.parse("2024-01-01T00:00:00Z"), ZoneOffset.UTC))
              .isEmpty());
    }
  }
}

package io.sluice.engine.cron;

import static io.sluice.engine.cron.Occurrences.inZone;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * API.md §9.4's DST decision: a wall-clock time in a spring-forward gap is skipped; one repeated by
 * a fall-back overlap fires once, at its first (earlier-offset) instant. Occurrences are shown as
 * local time with the offset in force.
 */
class CronDaylightSavingTest {

  /** 2024-03-10 02:00 EST → 03:00 EDT; 2024-11-03 02:00 EDT → 01:00 EST. */
  @Nested
  class NewYork {
    private static final String ZONE = "America/New_York";

    @Test
    void skipsADailyTimeInsideTheSpringForwardGap() {
      assertThat(inZone("30 2 * * *", ZONE, "2024-03-09T12:00-05:00", 2))
          .containsExactly("2024-03-11T02:30-04:00", "2024-03-12T02:30-04:00");
    }

    @Test
    void firesTheFirstWallTimeAfterTheGap() {
      assertThat(inZone("0 3 * * *", ZONE, "2024-03-10T00:00-05:00", 1))
          .containsExactly("2024-03-10T03:00-04:00");
      assertThat(inZone("*/15 * * * *", ZONE, "2024-03-10T01:40-05:00", 3))
          .containsExactly("2024-03-10T01:45-05:00", "2024-03-10T03:00-04:00",
              "2024-03-10T03:15-04:00");
    }

    @Test
    void everySecondRunsStraightAcrossTheGap() {
      assertThat(inZone("* * * * * *", ZONE, "2024-03-10T01:59:58-05:00", 2))
          .containsExactly("2024-03-10T01:59:59-05:00", "2024-03-10T03:00-04:00");
    }

    @Test
    void firesARepeatedDailyTimeOnceAtItsFirstInstant() {
      assertThat(inZone("30 1 * * *", ZONE, "2024-11-03T00:00-04:00", 2))
          .containsExactly("2024-11-03T01:30-04:00", "2024-11-04T01:30-05:00");
    }

    @Test
    void doesNotFireARepeatedTimeFromInsideItsSecondPass() {
      assertThat(inZone("30 1 * * *", ZONE, "2024-11-03T01:10-05:00", 1))
          .containsExactly("2024-11-04T01:30-05:00");
      assertThat(inZone("*/15 * * * *", ZONE, "2024-11-03T01:10-05:00", 1))
          .containsExactly("2024-11-03T02:00-05:00");
      assertThat(inZone("* * * * * *", ZONE, "2024-11-03T01:00-05:00", 1))
          .containsExactly("2024-11-03T02:00-05:00");
    }

    @Test
    void firesEachWallTimeOfTheRepeatedHourOnce() {
      assertThat(inZone("*/15 * * * *", ZONE, "2024-11-03T00:50-04:00", 6)).containsExactly(
          "2024-11-03T01:00-04:00", "2024-11-03T01:15-04:00", "2024-11-03T01:30-04:00",
          "2024-11-03T01:45-04:00", "2024-11-03T02:00-05:00", "2024-11-03T02:15-05:00");
    }

    @Test
    void hourlyWaitsOutTheRepeatedHour() {
      assertThat(inZone("0 * * * *", ZONE, "2024-11-03T00:30-04:00", 3)).containsExactly(
          "2024-11-03T01:00-04:00", "2024-11-03T02:00-05:00", "2024-11-03T03:00-05:00");
    }
  }

  /** 2024-04-07 03:00 AEDT → 02:00 AEST; 2024-10-06 02:00 AEST → 03:00 AEDT. */
  @Nested
  class Sydney {
    private static final String ZONE = "Australia/Sydney";

    @Test
    void firesARepeatedDailyTimeOnceWhenDaylightTimeEndsInApril() {
      assertThat(inZone("30 2 * * *", ZONE, "2024-04-06T12:00+11:00", 2))
          .containsExactly("2024-04-07T02:30+11:00", "2024-04-08T02:30+10:00");
    }

    @Test
    void firesEachWallTimeOfTheRepeatedHourOnce() {
      assertThat(inZone("*/30 * * * *", ZONE, "2024-04-07T01:45+11:00", 4)).containsExactly(
          "2024-04-07T02:00+11:00", "2024-04-07T02:30+11:00", "2024-04-07T03:00+10:00",
          "2024-04-07T03:30+10:00");
    }

    @Test
    void skipsADailyTimeInsideTheGapWhenDaylightTimeStartsInOctober() {
      assertThat(inZone("30 2 * * *", ZONE, "2024-10-05T12:00+10:00", 1))
          .containsExactly("2024-10-07T02:30+11:00");
      assertThat(inZone("*/30 * * * *", ZONE, "2024-10-06T01:15+10:00", 3)).containsExactly(
          "2024-10-06T01:30+10:00", "2024-10-06T03:00+11:00", "2024-10-06T03:30+11:00");
    }
  }

  /** Half-hour shifts: 2024-04-07 02:00 → 01:30; 2024-10-06 02:00 → 02:30. */
  @Nested
  class LordHowe {
    private static final String ZONE = "Australia/Lord_Howe";

    @Test
    void firesEachRepeatedWallTimeOnce() {
      assertThat(inZone("*/15 * * * *", ZONE, "2024-04-07T01:20+11:00", 4)).containsExactly(
          "2024-04-07T01:30+11:00", "2024-04-07T01:45+11:00", "2024-04-07T02:00+10:30",
          "2024-04-07T02:15+10:30");
    }

    @Test
    void skipsTheHalfHourGap() {
      assertThat(inZone("*/15 * * * *", ZONE, "2024-10-06T01:50+10:30", 2))
          .containsExactly("2024-10-06T02:30+11:00", "2024-10-06T02:45+11:00");
    }
  }

  @Test
  void skipsADayThatAZoneLeftOutEntirely() {
    // Samoa moved across the date line: 2011-12-30 never happened in Pacific/Apia.
    assertThat(inZone("0 12 30 12 *", "Pacific/Apia", "2011-12-29T00:00-10:00", 1))
        .containsExactly("2012-12-30T12:00+14:00");
  }
}

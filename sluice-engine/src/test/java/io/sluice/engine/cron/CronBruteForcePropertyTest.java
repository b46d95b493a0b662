package io.sluice.engine.cron;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

/**
 * {@link CronExpression#nextAfter} against a brute force that walks every instant of a short
 * window (each minute, or each second for 6-field expressions) and fires at an instant when its
 * wall time matches {@link RandomCron}'s independent reading of the expression and no earlier
 * instant showed that wall time. That is §9.4's decision restated: gap wall times are never shown,
 * so they never fire; repeated ones fire at their first instant only.
 *
 * <p>Windows sit mostly around a real transition of a zone with DST (both hemispheres, half-hour
 * and 45-minute offsets). The whole chain of occurrences inside a window must agree, and so must
 * the next occurrence after a few random instants in it.
 */
class CronBruteForcePropertyTest {
  private static final List<String> ZONES = List.of("America/New_York", "Europe/Rome",
      "Europe/London", "Australia/Sydney", "Australia/Lord_Howe", "America/Santiago",
      "Pacific/Chatham", "America/St_Johns", "Asia/Tehran", "Asia/Kolkata", "UTC");
  private static final RandomCron.Density MINUTE_DENSITY =
      new RandomCron.Density(0, 0.3, 0.5, 0.6, 0.8);
  private static final RandomCron.Density SECOND_DENSITY =
      new RandomCron.Density(0.3, 0.5, 0.7, 0.8, 0.9);
  /** Extra starting points inside each window, landing in repeated hours' second passes too. */
  private static final int PROBES = 5;

  @Property(tries = 200)
  void fiveFieldExpressionsMatchAMinuteByMinuteWalk(@ForAll long seed) {
    check(new Random(seed), false, Duration.ofDays(2), MINUTE_DENSITY);
  }

  @Property(tries = 100)
  void sixFieldExpressionsMatchASecondBySecondWalk(@ForAll long seed) {
    check(new Random(seed), true, Duration.ofHours(2), SECOND_DENSITY);
  }

  private static void check(Random random, boolean withSeconds, Duration window,
      RandomCron.Density density) {
    RandomCron cron = RandomCron.generate(random, withSeconds, density);
    ZoneId zone = ZoneId.of(ZONES.get(random.nextInt(ZONES.size())));
    Instant after = windowStart(random, zone, window);
    Instant end = after.plus(window);
    long stepSeconds = withSeconds ? 1 : 60;

    List<Instant> expected = bruteForce(cron, zone, after, end, stepSeconds);
    CronExpression expression = CronExpression.parse(cron.text);
    List<Instant> actual = chain(expression, zone, after, end);

    assertThat(actual).as("\"%s\" in %s after %s", cron, zone, after.atZone(zone))
        .isEqualTo(expected);
    for (int probe = 0; probe < PROBES; probe++) {
      Instant from = after.plusMillis(random.nextLong(window.toMillis()));
      Instant firstFire = expected.stream().filter(i -> i.isAfter(from)).findFirst()
          .orElse(Instant.MAX);
      Instant next = expression.nextAfter(from, zone).orElse(Instant.MAX);
      assertThat(next.equals(firstFire) || (firstFire.equals(Instant.MAX) && next.isAfter(end)))
          .as("\"%s\" in %s after %s: got %s, brute force %s", cron, zone, from.atZone(zone),
              next, firstFire)
          .isTrue();
    }
    Statistics.label("fires in window").collect(expected.isEmpty() ? "none" : "some");
    Statistics.label("fires in a repeated hour").collect(expected.stream()
        .anyMatch(i -> zone.getRules().getTransition(LocalDateTime.ofInstant(i, zone)) != null));
  }

  /** Mostly shortly before a transition of {@code zone}, else anywhere; sometimes mid-second. */
  private static Instant windowStart(Random random, ZoneId zone, Duration window) {
    Instant base = Instant.parse("2000-01-01T00:00:00Z")
        .plusSeconds(random.nextLong(Duration.ofDays(36 * 365).toSeconds()));
    ZoneOffsetTransition transition = zone.getRules().nextTransition(base);
    Instant anchor = transition != null && random.nextInt(5) > 0 ? transition.getInstant() : base;
    Instant start = anchor.minusSeconds(random.nextLong(window.toSeconds()));
    return random.nextInt(4) == 0 ? start.plusMillis(random.nextInt(1000)) : start;
  }

  private static List<Instant> bruteForce(RandomCron cron, ZoneId zone, Instant after,
      Instant end, long stepSeconds) {
    List<Instant> fires = new ArrayList<>();
    long first = Math.floorDiv(after.getEpochSecond(), stepSeconds) * stepSeconds + stepSeconds;
    for (Instant i = Instant.ofEpochSecond(first); !i.isAfter(end);
        i = i.plusSeconds(stepSeconds)) {
      LocalDateTime wallTime = LocalDateTime.ofInstant(i, zone);
      if (cron.matches(wallTime) && !shownEarlier(wallTime, i, zone)) {
        fires.add(i);
      }
    }
    return fires;
  }

  private static boolean shownEarlier(LocalDateTime wallTime, Instant instant, ZoneId zone) {
    return zone.getRules().getValidOffsets(wallTime).stream()
        .anyMatch(offset -> wallTime.toInstant(offset).isBefore(instant));
  }

  private static List<Instant> chain(CronExpression cron, ZoneId zone, Instant after,
      Instant end) {
    List<Instant> fires = new ArrayList<>();
    for (Instant cursor = cron.nextAfter(after, zone).orElse(Instant.MAX); !cursor.isAfter(end);
        cursor = cron.nextAfter(cursor, zone).orElse(Instant.MAX)) {
      fires.add(cursor);
    }
    return fires;
  }
}

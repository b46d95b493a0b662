package io.sluice.engine.cron;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Successive occurrences of an expression, rendered as text that is easy to compare and read. */
final class Occurrences {
  private Occurrences() {}

  /** The first {@code count} occurrences after a UTC wall time, as ISO local date-times. */
  static List<String> inUtc(String expression, String after, int count) {
    return chain(expression, LocalDateTime.parse(after).toInstant(ZoneOffset.UTC), ZoneOffset.UTC,
        count).stream().map(i -> LocalDateTime.ofInstant(i, ZoneOffset.UTC).toString()).toList();
  }

  /** The first {@code count} occurrences in {@code zone} after an ISO offset date-time. */
  static List<String> inZone(String expression, String zone, String after, int count) {
    ZoneId zoneId = ZoneId.of(zone);
    return chain(expression, OffsetDateTime.parse(after).toInstant(), zoneId, count).stream()
        .map(i -> i.atZone(zoneId).toOffsetDateTime().toString()).toList();
  }

  /** Up to {@code count} occurrences, each computed strictly after the previous one. */
  static List<Instant> chain(String expression, Instant after, ZoneId zone, int count) {
    CronExpression cron = CronExpression.parse(expression);
    List<Instant> occurrences = new ArrayList<>();
    Instant cursor = after;
    while (occurrences.size() < count) {
      Optional<Instant> next = cron.nextAfter(cursor, zone);
      if (next.isEmpty()) {
        break;
      }
      occurrences.add(next.get());
      cursor = next.get();
    }
    return occurrences;
  }
}

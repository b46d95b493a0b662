package io.sluice.engine.cron;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.util.Objects;
import java.util.Optional;

/**
 * An immutable, parsed cron expression (API.md §9.3) that computes occurrences as wall-clock times
 * in a zone (§9.4). Safe to share between threads.
 *
 * <p>Syntax: 5 fields ({@code minute hour day-of-month month day-of-week}) or 6 (a leading {@code
 * second}); {@code *}, {@code ?}, values, lists, ranges and steps ({@code *}/n, a-b/n, a/n); month
 * names JAN–DEC and weekday names SUN–SAT in any case, 0 and 7 = Sunday; {@code L}, {@code LW},
 * {@code nW} in day-of-month; {@code nL} and {@code n#k} in day-of-week; aliases {@code @yearly},
 * {@code @annually}, {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @midnight}, {@code
 * @hourly}. When day-of-month and day-of-week are both restricted a day matches if either does.
 */
public final class CronExpression {
  /**
   * The Gregorian calendar repeats, weekdays included, every 400 years, so a pattern with no
   * match in that span has none at all.
   */
  private static final int SEARCH_YEARS = 400;

  private final String text;
  private final WallClockPattern pattern;

  private CronExpression(String text, WallClockPattern pattern) {
    this.text = text;
    this.pattern = pattern;
  }

  /**
   * Parses {@code text}. An expression that can never fire (e.g. {@code 0 0 30 2 *}) is valid.
   *
   * @throws InvalidCronExpressionException with a short detail such as {@code expected 5 or 6
   *     fields, got 4}
   */
  public static CronExpression parse(String text) {
    Objects.requireNonNull(text, "text");
    return new CronExpression(text, ExpressionParser.parse(text));
  }

  /**
   * The first occurrence strictly after {@code after}, matching wall-clock times in {@code zone}.
   * A wall-clock time that a spring-forward gap skips does not fire; one that a fall-back overlap
   * repeats fires once, at its earlier instant. Empty when the expression never fires again.
   */
  public Optional<Instant> nextAfter(Instant after, ZoneId zone) {
    LocalDateTime from = firstCandidate(after, zone);
    int lastYear = from.getYear() + SEARCH_YEARS;
    while (true) {
      Optional<LocalDateTime> match = pattern.firstAtOrAfter(from, lastYear);
      if (match.isEmpty()) {
        return Optional.empty();
      }
      LocalDateTime wallTime = match.get();
      ZoneOffsetTransition transition = zone.getRules().getTransition(wallTime);
      if (transition != null && transition.isGap()) {
        from = transition.getDateTimeAfter();
        continue;
      }
      return Optional.of(wallTime.atZone(zone).withEarlierOffsetAtOverlap().toInstant());
    }
  }

  /**
   * The earliest wall-clock time whose occurrence would fall strictly after {@code after}. Wall
   * times map to instants in increasing order (a repeated one taking its earlier instant), except
   * that {@code after} itself may lie in an overlap's second pass: every wall time of that overlap
   * then already had its instant, so the search resumes where the overlap ends.
   */
  private static LocalDateTime firstCandidate(Instant after, ZoneId zone) {
    ZonedDateTime at = after.atZone(zone);
    // A wall time that some instant shows is never in a gap, so any transition here is an overlap.
    ZoneOffsetTransition overlap = zone.getRules().getTransition(at.toLocalDateTime());
    if (overlap != null && at.getOffset().equals(overlap.getOffsetAfter())) {
      return overlap.getDateTimeBefore();
    }
    return at.toLocalDateTime().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
  }

  /** The text as given to {@link #parse}. */
  @Override
  public String toString() {
    return text;
  }

  /** Equal when the texts are identical, so a changed spelling counts as a changed expression. */
  @Override
  public boolean equals(Object other) {
    return other instanceof CronExpression expression && text.equals(expression.text);
  }

  @Override
  public int hashCode() {
    return text.hashCode();
  }
}

package io.sluice.client.model;

import java.time.Instant;

/** An inclusive range filter (API.md §7.1); a null bound is open. */
public record Range(Long min, Long max) {
  public Range {
    if (min != null && max != null && min > max) {
      throw new IllegalArgumentException("range lower bound exceeds upper bound");
    }
  }

  public static Range exactly(long value) {
    return new Range(value, value);
  }

  public static Range between(long min, long max) {
    return new Range(min, max);
  }

  public static Range atLeast(long min) {
    return new Range(min, null);
  }

  public static Range atMost(long max) {
    return new Range(null, max);
  }

  public static Range between(Instant from, Instant to) {
    return new Range(from.toEpochMilli(), to.toEpochMilli());
  }

  public static Range before(Instant to) {
    return atMost(to.toEpochMilli());
  }

  /** The query-string form: {@code N}, {@code A..B}, {@code A..} or {@code ..B}. */
  public String wire() {
    if (min != null && min.equals(max)) {
      return min.toString();
    }
    return (min == null ? "" : min.toString()) + ".." + (max == null ? "" : max.toString());
  }
}

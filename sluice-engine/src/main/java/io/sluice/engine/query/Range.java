package io.sluice.engine.query;

/** An inclusive range filter {@code min..max} (API.md §7.1); open ends use the type's limits. */
public record Range(long min, long max) {
  public boolean contains(long value) {
    return value >= min && value <= max;
  }
}

package io.sluice.engine.budget;

/**
 * What a worker reports one budget binding of a job really cost, at acknowledgement (X5).
 * {@code partition} is the X3 partition it names, or null.
 */
public record Settlement(String key, long cost, String partition) {
  /** The largest actual cost a settlement may report. */
  public static final long MAX_COST = 1_000_000;

  public Settlement(String key, long cost) {
    this(key, cost, null);
  }
}

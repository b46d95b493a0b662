package io.sluice.engine.job;

/**
 * A job's draw on one budget: {@code cost} tokens per dispatch, from the pool of
 * {@code partition} when the budget is partitioned (X3; null otherwise).
 */
public record Binding(String key, String partition, long cost) {
  /** A binding to a plain budget. */
  public Binding(String key, long cost) {
    this(key, null, cost);
  }
}

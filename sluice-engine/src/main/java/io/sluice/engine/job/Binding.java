package io.sluice.engine.job;

/**
 * A job's draw on one budget: {@code cost} tokens per dispatch, from the pool of
 * {@code partition} when the budget is partitioned (X3; null otherwise). {@code settledCost} is
 * what the worker reported the latest acknowledged attempt really cost (X5), or null: it is
 * cleared when the job is dispatched again.
 */
public record Binding(String key, String partition, long cost, Long settledCost) {

  /** A binding to a plain budget that no acknowledgement has settled. */
  public Binding(String key, long cost) {
    this(key, null, cost, null);
  }

  /** A binding no acknowledgement has settled. */
  public Binding(String key, String partition, long cost) {
    this(key, partition, cost, null);
  }

  /** A binding to a plain budget. */
  public Binding(String key, long cost, Long settledCost) {
    this(key, null, cost, settledCost);
  }

  /**
   * Why {@code named}, a partition a worker names for this binding (in a throttle or a
   * settlement), does not fit it (X3), or null when it does: absent, or the binding's own.
   */
  public String partitionProblem(String named) {
    if (named == null || named.equals(partition)) {
      return null;
    }
    return partition == null
        ? "budget " + key + " is not partitioned"
        : "job is not bound to partition " + named + " of budget " + key;
  }

  public Binding settled(long actual) {
    return new Binding(key, partition, cost, actual);
  }

  public Binding unsettled() {
    return settledCost == null ? this : new Binding(key, partition, cost, null);
  }
}

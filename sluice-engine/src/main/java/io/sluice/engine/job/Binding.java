package io.sluice.engine.job;

/**
 * A job's draw on one budget: {@code cost} tokens per dispatch. {@code settledCost} is what the
 * worker reported the latest acknowledged attempt really cost (X5), or null: it is cleared when
 * the job is dispatched again.
 */
public record Binding(String key, long cost, Long settledCost) {

  /** A binding no acknowledgement has settled. */
  public Binding(String key, long cost) {
    this(key, cost, null);
  }

  public Binding settled(long actual) {
    return new Binding(key, cost, actual);
  }

  public Binding unsettled() {
    return settledCost == null ? this : new Binding(key, cost);
  }
}

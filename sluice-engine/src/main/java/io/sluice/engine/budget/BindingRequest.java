package io.sluice.engine.budget;

/**
 * A binding as a client wrote it: {@code cost} null means 1; {@code createWith} null means the
 * budget must already exist (BUDGETS.md §4.1); {@code partition} names the pool of a partitioned
 * budget (X3), null when absent.
 */
public record BindingRequest(String key, Long cost, PolicySpec createWith, String partition) {

  /** A binding without a partition. */
  public BindingRequest(String key, Long cost, PolicySpec createWith) {
    this(key, cost, createWith, null);
  }
}

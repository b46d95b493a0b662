package io.sluice.engine.budget;

/**
 * An immutable copy of a budget's stored fields, for responses and storage. {@code partitioned}
 * (X3) is fixed at creation. {@code pausedUntilMs} is the end of its last pause (X6; it may have
 * passed), or null when it was never paused or was resumed.
 */
public record BudgetView(String key, BudgetPolicy policy, boolean partitioned, long createdAtMs,
    long updatedAtMs, Long pausedUntilMs) {

  /** A plain budget. */
  public BudgetView(String key, BudgetPolicy policy, long createdAtMs, long updatedAtMs,
      Long pausedUntilMs) {
    this(key, policy, false, createdAtMs, updatedAtMs, pausedUntilMs);
  }

  /** A plain budget that is not paused. */
  public BudgetView(String key, BudgetPolicy policy, long createdAtMs, long updatedAtMs) {
    this(key, policy, false, createdAtMs, updatedAtMs, null);
  }
}

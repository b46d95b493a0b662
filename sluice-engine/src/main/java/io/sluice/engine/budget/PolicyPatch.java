package io.sluice.engine.budget;

/**
 * A merge patch of a budget policy (BUDGETS.md §8.5): null fields are absent; {@code clearBurst}
 * means {@code "burst": null}; {@code durable} (X4) is null when the patch leaves it as it is;
 * {@code partitioned} (X3) may only repeat the budget's own value.
 */
public record PolicyPatch(Long allocation, String type, Long durationMs, Long burst,
    boolean clearBurst, Boolean durable, Boolean partitioned) {

  /** A patch that leaves {@code durable} as it is and says nothing of partitions. */
  public PolicyPatch(Long allocation, String type, Long durationMs, Long burst,
      boolean clearBurst) {
    this(allocation, type, durationMs, burst, clearBurst, null, null);
  }

  /** A patch that says nothing of partitions. */
  public PolicyPatch(Long allocation, String type, Long durationMs, Long burst,
      boolean clearBurst, Boolean durable) {
    this(allocation, type, durationMs, burst, clearBurst, durable, null);
  }
}

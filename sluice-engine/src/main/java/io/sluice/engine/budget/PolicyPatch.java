package io.sluice.engine.budget;

/**
 * A merge patch of a budget policy (BUDGETS.md §8.5): null fields are absent; {@code clearBurst}
 * means {@code "burst": null}; {@code durable} (X4) is null when the patch leaves it as it is.
 */
public record PolicyPatch(Long allocation, String type, Long durationMs, Long burst,
    boolean clearBurst, Boolean durable) {

  /** A patch that leaves {@code durable} as it is. */
  public PolicyPatch(Long allocation, String type, Long durationMs, Long burst,
      boolean clearBurst) {
    this(allocation, type, durationMs, burst, clearBurst, null);
  }
}

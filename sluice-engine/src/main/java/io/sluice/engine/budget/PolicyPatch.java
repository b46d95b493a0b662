package io.sluice.engine.budget;

/**
 * A merge patch of a budget policy (BUDGETS.md §8.5): null fields are absent; {@code clearBurst}
 * means {@code "burst": null}.
 */
public record PolicyPatch(Long allocation, String type, Long durationMs, Long burst,
    boolean clearBurst) {}

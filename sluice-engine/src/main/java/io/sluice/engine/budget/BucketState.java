package io.sluice.engine.budget;

/**
 * The token state a durable time_based budget keeps across restarts (X4): whole tokens {@code T},
 * accrued token·milliseconds {@code K}, debt and the last refill {@code L} (BUDGETS.md §3). The
 * end of a pause is not here: it is stored with the budget itself (X6).
 */
public record BucketState(long tokens, long accrued, long debt, long lastRefillMs) {}

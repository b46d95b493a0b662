package io.sluice.engine.budget;

/** An immutable copy of a budget's stored fields, for responses and storage. */
public record BudgetView(String key, BudgetPolicy policy, long createdAtMs, long updatedAtMs) {}

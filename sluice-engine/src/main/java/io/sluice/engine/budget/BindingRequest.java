package io.sluice.engine.budget;

/**
 * A binding as a client wrote it: {@code cost} null means 1; {@code createWith} null means the
 * budget must already exist (BUDGETS.md §4.1).
 */
public record BindingRequest(String key, Long cost, PolicySpec createWith) {}

package io.sluice.engine.budget;

import java.util.List;

/** One change to a job's budget bindings (BUDGETS.md §8.7). */
public sealed interface BindingChange {
  /** Replace the whole set; an empty list unbinds everything. */
  record ReplaceAll(List<BindingRequest> bindings) implements BindingChange {}

  /** Add a binding the job does not have yet. */
  record Add(BindingRequest binding) implements BindingChange {}

  /** Bind, or replace an existing binding whole, keeping its position. */
  record Put(BindingRequest binding) implements BindingChange {}

  /** Change the cost of an existing binding. */
  record PatchCost(String key, long cost) implements BindingChange {}

  /** Remove one binding. */
  record Remove(String key) implements BindingChange {}
}

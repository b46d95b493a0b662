package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A job's claim on a budget (BUDGETS.md §4). On requests a null cost means 1 and
 * {@code createWith} creates the budget if it does not exist yet; the server echoes bindings with
 * the cost resolved and without {@code createWith}, and with {@code settledCost} when the
 * latest acknowledgement settled what the job really cost (X5).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BudgetBinding(
    @JsonProperty("key") String key,
    @JsonProperty("cost") Long cost,
    @JsonProperty("create_with") BudgetPolicy createWith,
    @JsonProperty("settled_cost") Long settledCost) {

  public BudgetBinding(String key, Long cost, BudgetPolicy createWith) {
    this(key, cost, createWith, null);
  }

  public static BudgetBinding of(String key) {
    return new BudgetBinding(key, null, null);
  }

  public static BudgetBinding of(String key, long cost) {
    return new BudgetBinding(key, cost, null);
  }

  public BudgetBinding withCreate(BudgetPolicy policy) {
    return new BudgetBinding(key, cost, policy);
  }
}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A job's claim on a budget (BUDGETS.md §4). On requests a null cost means 1 and
 * {@code createWith} creates the budget if it does not exist yet; the server echoes bindings with
 * the cost resolved and without {@code createWith}, and with {@code settledCost} when the
 * latest acknowledgement settled what the job really cost (X5). A binding to a partitioned
 * budget (X3) names the {@code partition} it draws on; it is null for a plain budget.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BudgetBinding(
    @JsonProperty("key") String key,
    @JsonProperty("cost") Long cost,
    @JsonProperty("create_with") BudgetPolicy createWith,
    @JsonProperty("settled_cost") Long settledCost,
    @JsonProperty("partition") String partition) {

  public BudgetBinding(String key, Long cost, BudgetPolicy createWith) {
    this(key, cost, createWith, null, null);
  }

  public BudgetBinding(String key, Long cost, BudgetPolicy createWith, Long settledCost) {
    this(key, cost, createWith, settledCost, null);
  }

  public static BudgetBinding of(String key) {
    return new BudgetBinding(key, null, null);
  }

  public static BudgetBinding of(String key, long cost) {
    return new BudgetBinding(key, cost, null);
  }

  /** A binding to partition {@code partition} of the partitioned budget {@code key} (X3). */
  public static BudgetBinding onPartition(String key, String partition) {
    return new BudgetBinding(key, null, null, null, partition);
  }

  public BudgetBinding withCreate(BudgetPolicy policy) {
    return new BudgetBinding(key, cost, policy, settledCost, partition);
  }

  public BudgetBinding withCost(long cost) {
    return new BudgetBinding(key, cost, createWith, settledCost, partition);
  }
}

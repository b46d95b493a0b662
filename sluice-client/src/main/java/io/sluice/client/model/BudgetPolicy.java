package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * The body of a budget create/replace, also used as a binding's {@code create_with}. A
 * {@code durable} budget (X4) keeps its token state across server restarts; it is sent only when
 * true, so a plain policy reads exactly as BUDGETS.md §2.1.
 */
public record BudgetPolicy(
    @JsonProperty("allocation") long allocation,
    @JsonProperty("strategy") BudgetStrategy strategy,
    @JsonProperty("durable") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean durable) {

  /** A policy that is not durable. */
  public BudgetPolicy(long allocation, BudgetStrategy strategy) {
    this(allocation, strategy, false);
  }

  /** At most {@code slots} cost units in flight at once. */
  public static BudgetPolicy concurrency(long slots) {
    return new BudgetPolicy(slots, BudgetStrategy.whileInFlight());
  }

  /** {@code tokens} per {@code period}, dripping continuously. */
  public static BudgetPolicy rate(long tokens, Duration period) {
    return new BudgetPolicy(tokens, BudgetStrategy.timeBased(period));
  }

  /** The same policy, with its token state kept across server restarts (X4). */
  public BudgetPolicy keptAcrossRestarts() {
    return new BudgetPolicy(allocation, strategy, true);
  }
}

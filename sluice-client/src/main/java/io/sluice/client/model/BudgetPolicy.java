package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * The body of a budget create/replace, also used as a binding's {@code create_with}. A
 * {@code durable} budget (X4) keeps its token state across server restarts; a
 * {@code partitioned} one (X3) is a family of independent pools under this one policy, one per
 * partition value its bindings name. Both are sent only when true, so a plain policy reads
 * exactly as BUDGETS.md §2.1. {@code partitioned} is fixed when the budget is created: a
 * {@code PUT} that changes it is refused.
 */
public record BudgetPolicy(
    @JsonProperty("allocation") long allocation,
    @JsonProperty("strategy") BudgetStrategy strategy,
    @JsonProperty("durable") @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean durable,
    @JsonProperty("partitioned") @JsonInclude(JsonInclude.Include.NON_DEFAULT)
        boolean partitioned) {

  /** A policy that is neither durable nor partitioned. */
  public BudgetPolicy(long allocation, BudgetStrategy strategy) {
    this(allocation, strategy, false, false);
  }

  /** A policy that is not partitioned. */
  public BudgetPolicy(long allocation, BudgetStrategy strategy, boolean durable) {
    this(allocation, strategy, durable, false);
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
    return new BudgetPolicy(allocation, strategy, true, partitioned);
  }

  /**
   * The same policy applied to each partition on its own (X3): every binding then names a
   * partition ({@link BudgetBinding#onPartition}), and each partition value has a pool of its
   * own, full on first use. Per-tenant limits, say, with the tenant as the partition.
   */
  public BudgetPolicy perPartition() {
    return new BudgetPolicy(allocation, strategy, durable, true);
  }
}

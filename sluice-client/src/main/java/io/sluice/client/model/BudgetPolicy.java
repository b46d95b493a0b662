package io.sluice.client.model;

import java.time.Duration;

/** The body of a budget create/replace, also used as a binding's {@code create_with}. */
public record BudgetPolicy(long allocation, BudgetStrategy strategy) {

  /** At most {@code slots} cost units in flight at once. */
  public static BudgetPolicy concurrency(long slots) {
    return new BudgetPolicy(slots, BudgetStrategy.whileInFlight());
  }

  /** {@code tokens} per {@code period}, dripping continuously. */
  public static BudgetPolicy rate(long tokens, Duration period) {
    return new BudgetPolicy(tokens, BudgetStrategy.timeBased(period));
  }
}

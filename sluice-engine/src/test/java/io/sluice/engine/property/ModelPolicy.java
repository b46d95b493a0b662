package io.sluice.engine.property;

import io.sluice.engine.budget.PolicySpec;

/**
 * A budget policy as the test model sees it (BUDGETS.md §2): {@code durationMs} is ignored and
 * {@code burst} null for {@code while_in_flight}.
 */
record ModelPolicy(boolean timeBased, long allocation, long durationMs, Long burst) {

  static ModelPolicy whileInFlight(long allocation) {
    return new ModelPolicy(false, allocation, 0, null);
  }

  static ModelPolicy timeBased(long allocation, long durationMs, Long burst) {
    return new ModelPolicy(true, allocation, durationMs, burst);
  }

  /** BUDGETS.md §2.3: burst when set on a time_based budget, else the allocation. */
  long capacity() {
    return timeBased && burst != null ? burst : allocation;
  }

  String type() {
    return timeBased ? "time_based" : "while_in_flight";
  }

  PolicySpec toSpec() {
    return new PolicySpec(allocation, type(), timeBased ? (Long) durationMs : null,
        timeBased ? burst : null);
  }

  @Override
  public String toString() {
    if (!timeBased) {
      return "wif(" + allocation + ")";
    }
    return "tb(" + allocation + "/" + durationMs + "ms" + (burst == null ? "" : ",burst " + burst)
        + ")";
  }
}

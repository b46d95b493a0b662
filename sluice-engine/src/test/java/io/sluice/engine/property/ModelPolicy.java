package io.sluice.engine.property;

import io.sluice.engine.budget.PolicySpec;

/**
 * A budget policy as the test model sees it (BUDGETS.md §2): {@code durationMs} is ignored and
 * {@code burst} null for {@code while_in_flight}; {@code durable} is X4,
 * {@code partitioned} X3.
 */
record ModelPolicy(boolean timeBased, long allocation, long durationMs, Long burst,
    boolean durable, boolean partitioned) {

  static ModelPolicy whileInFlight(long allocation) {
    return new ModelPolicy(false, allocation, 0, null, false, false);
  }

  static ModelPolicy timeBased(long allocation, long durationMs, Long burst) {
    return new ModelPolicy(true, allocation, durationMs, burst, false, false);
  }

  ModelPolicy withDurable(boolean durable) {
    return new ModelPolicy(timeBased, allocation, durationMs, burst, durable, partitioned);
  }

  /** X3: a family of pools, one per partition value; fixed when the budget is created. */
  ModelPolicy withPartitioned(boolean partitioned) {
    return new ModelPolicy(timeBased, allocation, durationMs, burst, durable, partitioned);
  }

  /** A restart keeps this budget's tokens spent (X4); every other bucket starts full (§10). */
  boolean keepsTokenState() {
    return durable && timeBased;
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
        timeBased ? burst : null, durable, partitioned ? Boolean.TRUE : null);
  }

  @Override
  public String toString() {
    String durability = (durable ? ",durable" : "") + (partitioned ? ",partitioned" : "");
    if (!timeBased) {
      return "wif(" + allocation + durability + ")";
    }
    return "tb(" + allocation + "/" + durationMs + "ms" + (burst == null ? "" : ",burst " + burst)
        + durability + ")";
  }
}

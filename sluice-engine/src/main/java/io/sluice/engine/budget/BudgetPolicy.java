package io.sluice.engine.budget;

import io.sluice.engine.SluiceException;

/**
 * A validated budget policy. {@code durationMs} is 0 and {@code burst} null for
 * {@code while_in_flight}; {@code burst} is null when it defaults to the allocation.
 * {@code durable} (X4) keeps a time_based budget's token state across restarts.
 */
public record BudgetPolicy(long allocation, StrategyType type, long durationMs, Long burst,
    boolean durable) {
  public static final long MAX_TOKENS = 1_000_000;

  /** A policy that is not durable. */
  public BudgetPolicy(long allocation, StrategyType type, long durationMs, Long burst) {
    this(allocation, type, durationMs, burst, false);
  }

  /**
   * True when the budget's token state must outlive the process (X4): a durable time_based
   * budget. A while_in_flight pool holds nothing worth keeping: recovery returns every job in
   * flight to ready, and their release pays any debt and frees every slot (docs/decisions.md).
   */
  public boolean storesTokenState() {
    return durable && type == StrategyType.TIME_BASED;
  }

  /** The most tokens the pool can hold, and so the largest cost a binding may have (§2.3). */
  public long capacity() {
    return burst != null ? burst : allocation;
  }

  /** Applies the policy rules of BUDGETS.md §2.2 in order; violations are 422s. */
  public static BudgetPolicy validate(PolicySpec spec) {
    if (spec.allocation() < 1) {
      throw invalid("budget allocation must be at least 1");
    }
    if (spec.allocation() > MAX_TOKENS) {
      throw invalid("budget allocation must not exceed 1000000");
    }
    StrategyType type = StrategyType.fromWireName(spec.type());
    if (type == null) {
      throw invalid("unknown budget strategy: " + spec.type());
    }
    if (type == StrategyType.TIME_BASED) {
      if (spec.durationMs() == null) {
        throw invalid("time_based budget requires duration_ms");
      }
      if (spec.durationMs() < 1) {
        throw invalid("time_based budget duration_ms must be at least 1");
      }
      if (spec.burst() != null && spec.burst() < 1) {
        throw invalid("time_based budget burst must be at least 1");
      }
      if (spec.burst() != null && spec.burst() > MAX_TOKENS) {
        throw invalid("time_based budget burst must not exceed 1000000");
      }
      return new BudgetPolicy(spec.allocation(), type, spec.durationMs(), spec.burst(),
          spec.durable());
    }
    if (spec.durationMs() != null) {
      throw invalid("while_in_flight budget cannot take a duration_ms");
    }
    if (spec.burst() != null) {
      throw invalid("while_in_flight budget cannot take a burst");
    }
    return new BudgetPolicy(spec.allocation(), type, 0, null, spec.durable());
  }

  private static SluiceException invalid(String message) {
    return new SluiceException.Unprocessable(message);
  }
}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * A budget's strategy. {@code duration} is set only for time-based budgets; {@code burst} only
 * when a time-based budget overrides its capacity.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BudgetStrategy(
    @JsonProperty("type") StrategyType type,
    @JsonProperty("duration_ms") Duration duration,
    @JsonProperty("burst") Long burst) {

  public static BudgetStrategy whileInFlight() {
    return new BudgetStrategy(StrategyType.WHILE_IN_FLIGHT, null, null);
  }

  public static BudgetStrategy timeBased(Duration period) {
    return new BudgetStrategy(StrategyType.TIME_BASED, period, null);
  }

  public static BudgetStrategy timeBased(Duration period, long burst) {
    return new BudgetStrategy(StrategyType.TIME_BASED, period, burst);
  }
}

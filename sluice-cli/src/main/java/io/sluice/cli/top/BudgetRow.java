package io.sluice.cli.top;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One budget with its live state (EXTENSIONS.md X1) as {@code sluice top} shows it. Null
 * instants mean "none" (full pool, not time-based, not paused); {@code partitions} is null for a
 * plain budget and the partitions held for a partitioned one (X3), whose tokens are per partition.
 */
public record BudgetRow(String key, String strategy, long tokens, long capacity, long debt,
    long inFlightJobs, long waitingJobs, Long nextTokenAtMs, Long pausedUntilMs, long asOfMs,
    Long partitions) {

  /** A budget of a {@code budgets} message, shaped as {@code GET /budgets?state=true}. */
  static BudgetRow from(JsonNode budget) {
    JsonNode state = budget.path("state");
    return new BudgetRow(budget.path("key").asText(),
        budget.path("strategy").path("type").asText(), state.path("tokens").asLong(),
        state.path("capacity").asLong(), state.path("debt").asLong(),
        state.path("in_flight").path("jobs").asLong(),
        state.path("waiting").path("jobs").asLong(), instant(state.get("next_token_at")),
        instant(state.get("paused_until")), state.path("as_of").asLong(),
        budget.path("partitioned").asBoolean() ? state.path("partitions").asLong() : null);
  }

  private static Long instant(JsonNode value) {
    return value == null || value.isNull() ? null : value.asLong();
  }
}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * A budget together with its live state ({@code GET /budgets/{key}?state=true}). For a
 * partitioned budget (X3) the state describes the budget as a whole; see {@link BudgetState}.
 */
public record BudgetWithState(
    @JsonProperty("key") String key,
    @JsonProperty("allocation") long allocation,
    @JsonProperty("strategy") BudgetStrategy strategy,
    @JsonProperty("durable") boolean durable,
    @JsonProperty("partitioned") boolean partitioned,
    @JsonProperty("created_at") Instant createdAt,
    @JsonProperty("updated_at") Instant updatedAt,
    @JsonProperty("state") BudgetState state) {}

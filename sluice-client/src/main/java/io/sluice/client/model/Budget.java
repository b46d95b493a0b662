package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/** A stored budget (BUDGETS.md §2.1). */
public record Budget(
    @JsonProperty("key") String key,
    @JsonProperty("allocation") long allocation,
    @JsonProperty("strategy") BudgetStrategy strategy,
    @JsonProperty("created_at") Instant createdAt,
    @JsonProperty("updated_at") Instant updatedAt) {}

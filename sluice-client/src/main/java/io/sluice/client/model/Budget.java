package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * A stored budget (BUDGETS.md §2.1); {@code durable} is X4 and {@code partitioned} X3 (each false
 * when the server omits it).
 */
public record Budget(
    @JsonProperty("key") String key,
    @JsonProperty("allocation") long allocation,
    @JsonProperty("strategy") BudgetStrategy strategy,
    @JsonProperty("durable") boolean durable,
    @JsonProperty("partitioned") boolean partitioned,
    @JsonProperty("created_at") Instant createdAt,
    @JsonProperty("updated_at") Instant updatedAt) {}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One partition of a partitioned budget (Sluice X3) with its live state: the pool that bindings
 * naming {@code partition} draw on. A partition not in use reads as a fresh, full pool.
 */
public record BudgetPartition(
    @JsonProperty("key") String key,
    @JsonProperty("partition") String partition,
    @JsonProperty("state") BudgetState state) {}

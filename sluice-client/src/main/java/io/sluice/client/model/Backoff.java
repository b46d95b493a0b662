package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * Retry delay parameters: {@code base + attempts^exponent seconds + random(jitter × attempts)}
 * (API.md §4.3). All three are required on the wire.
 */
public record Backoff(
    @JsonProperty("base_ms") Duration base,
    @JsonProperty("exponent") float exponent,
    @JsonProperty("jitter_ms") Duration jitter) {}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * One recorded failure of a job (API.md §6.3). {@code throttled} (X6) is true for a failure the
 * worker reported as throttled, which did not count an attempt: its {@code attempt} is the one
 * that was in progress and is tried again.
 */
public record ErrorRecord(
    @JsonProperty("attempt") int attempt,
    @JsonProperty("message") String message,
    @JsonProperty("error_type") String errorType,
    @JsonProperty("backtrace") String backtrace,
    @JsonProperty("dequeued_at") Instant dequeuedAt,
    @JsonProperty("failed_at") Instant failedAt,
    @JsonProperty("throttled") boolean throttled) {}

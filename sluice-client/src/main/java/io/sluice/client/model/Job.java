package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * A job as the server returns it (API.md §6.1). Optional members are null when the server omits
 * them. {@code payload} is null in the shape without payload (enqueue, patch and failure
 * responses) and a {@code NullNode} for a job whose payload is JSON null. {@code duplicate} and
 * {@code folded} are meaningful on enqueue responses only.
 */
public record Job(
    @JsonProperty("id") String id,
    @JsonProperty("type") String type,
    @JsonProperty("queue") String queue,
    @JsonProperty("priority") int priority,
    @JsonProperty("status") JobStatus status,
    @JsonProperty("payload") JsonNode payload,
    @JsonProperty("ready_at") Instant readyAt,
    @JsonProperty("attempts") int attempts,
    @JsonProperty("retry_limit") Long retryLimit,
    @JsonProperty("backoff") Backoff backoff,
    @JsonProperty("retention") Retention retention,
    @JsonProperty("dequeued_at") Instant dequeuedAt,
    @JsonProperty("failed_at") Instant failedAt,
    @JsonProperty("completed_at") Instant completedAt,
    @JsonProperty("purge_at") Instant purgeAt,
    @JsonProperty("unique_key") String uniqueKey,
    @JsonProperty("unique_while") UniqueWhile uniqueWhile,
    @JsonProperty("batch") Batch batch,
    @JsonProperty("budgets") List<BudgetBinding> budgets,
    @JsonProperty("duplicate") boolean duplicate,
    @JsonProperty("folded") boolean folded) {}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/** An installed cron entry with its schedule state (API.md §9.1). */
public record CronEntry(
    @JsonProperty("name") String name,
    @JsonProperty("expression") String expression,
    @JsonProperty("timezone") String timezone,
    @JsonProperty("paused") boolean paused,
    @JsonProperty("job") EnqueueRequest job,
    @JsonProperty("paused_at") Instant pausedAt,
    @JsonProperty("resumed_at") Instant resumedAt,
    @JsonProperty("next_enqueue_at") Instant nextEnqueueAt,
    @JsonProperty("last_enqueue_at") Instant lastEnqueueAt) {}

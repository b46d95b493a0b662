package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;

/** An installed cron group (API.md §9.1). */
public record CronGroup(
    @JsonProperty("name") String name,
    @JsonProperty("paused") boolean paused,
    @JsonProperty("paused_at") Instant pausedAt,
    @JsonProperty("resumed_at") Instant resumedAt,
    @JsonProperty("timezone") String timezone,
    @JsonProperty("entries") List<CronEntry> entries) {}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/** How long finished jobs stay visible; a null member means the server default. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Retention(
    @JsonProperty("completed_ms") Duration completed,
    @JsonProperty("dead_ms") Duration dead) {}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The outcome of a bulk binding change: {@code blocked} lists in-flight jobs that would have
 * changed and were left alone, to retry once they drain (BUDGETS.md §8.7.2).
 */
public record BindingChange(
    @JsonProperty("changed") long changed,
    @JsonProperty("blocked") List<String> blocked) {}

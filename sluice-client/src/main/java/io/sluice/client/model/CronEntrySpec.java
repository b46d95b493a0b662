package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A cron entry to install (API.md §9.1). {@code job} must not set {@code readyAt}; a null
 * {@code paused} keeps an existing entry's state, a null {@code timezone} inherits the group's.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CronEntrySpec(
    @JsonProperty("name") String name,
    @JsonProperty("expression") String expression,
    @JsonProperty("timezone") String timezone,
    @JsonProperty("paused") Boolean paused,
    @JsonProperty("job") EnqueueRequest job) {

  public static CronEntrySpec of(String name, String expression, EnqueueRequest job) {
    return new CronEntrySpec(name, expression, null, null, job);
  }
}

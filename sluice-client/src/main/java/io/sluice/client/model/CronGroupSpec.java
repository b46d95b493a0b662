package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** A whole cron group, as {@code PUT /crons/{group}} replaces it (entries absent are deleted). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CronGroupSpec(
    @JsonProperty("paused") Boolean paused,
    @JsonProperty("timezone") String timezone,
    @JsonProperty("entries") List<CronEntrySpec> entries) {

  public static CronGroupSpec of(CronEntrySpec... entries) {
    return new CronGroupSpec(null, null, List.of(entries));
  }
}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * The {@code throttle} of a failure report (X6): the downstream service behind {@code budget}
 * told the worker to back off for {@code retryAfterMs}. The server pauses the budget that long
 * and puts the job back in its place without counting the attempt. For a partitioned budget (X3)
 * only the partition the job draws on is paused; {@code partition} may name it (null: not named),
 * and naming another one is refused.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Throttle(
    @JsonProperty("budget") String budget,
    @JsonProperty("partition") String partition,
    @JsonProperty("retry_after_ms") long retryAfterMs) {

  public Throttle(String budget, long retryAfterMs) {
    this(budget, null, retryAfterMs);
  }

  public static Throttle of(String budget, Duration retryAfter) {
    return new Throttle(budget, retryAfter.toMillis());
  }

  /** A throttle of partition {@code partition} of the partitioned budget {@code budget} (X3). */
  public static Throttle of(String budget, String partition, Duration retryAfter) {
    return new Throttle(budget, partition, retryAfter.toMillis());
  }
}

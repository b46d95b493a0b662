package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * The {@code throttle} of a failure report (X6): the downstream service behind {@code budget}
 * told the worker to back off for {@code retryAfterMs}. The server pauses the budget that long
 * and puts the job back in its place without counting the attempt.
 */
public record Throttle(
    @JsonProperty("budget") String budget,
    @JsonProperty("retry_after_ms") long retryAfterMs) {

  public static Throttle of(String budget, Duration retryAfter) {
    return new Throttle(budget, retryAfter.toMillis());
  }
}

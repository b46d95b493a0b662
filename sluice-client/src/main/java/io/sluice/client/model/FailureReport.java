package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;

/**
 * The body of {@code POST /jobs/{id}/failure} (API.md §8.7). {@code retryAt} bypasses backoff
 * and the retry limit; {@code kill} makes the job dead at once; {@code throttle} (X6) reports
 * that a downstream service told the worker to back off, and is refused beside either of them.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FailureReport(
    @JsonProperty("message") String message,
    @JsonProperty("error_type") String errorType,
    @JsonProperty("backtrace") String backtrace,
    @JsonProperty("retry_at") Instant retryAt,
    @JsonProperty("kill") Boolean kill,
    @JsonProperty("throttle") Throttle throttle) {

  public static FailureReport of(String message) {
    return new FailureReport(message, null, null, null, null, null);
  }

  /** The exception's class, message (its class name when it has none) and stack trace. */
  public static FailureReport of(Throwable error) {
    String message = error.getMessage() != null ? error.getMessage() : error.getClass().getName();
    StringWriter trace = new StringWriter();
    error.printStackTrace(new PrintWriter(trace));
    return new FailureReport(message, error.getClass().getName(), trace.toString(), null, null,
        null);
  }

  public FailureReport killed() {
    return new FailureReport(message, errorType, backtrace, retryAt, true, throttle);
  }

  public FailureReport retryingAt(Instant at) {
    return new FailureReport(message, errorType, backtrace, at, kill, throttle);
  }

  /**
   * Reports the failure as throttled (X6): {@code budget} is paused for {@code retryAfter}, and
   * the job is ready again at once, in its place, with its attempts unchanged.
   */
  public FailureReport throttling(String budget, Duration retryAfter) {
    return new FailureReport(message, errorType, backtrace, retryAt, kill,
        Throttle.of(budget, retryAfter));
  }

  /**
   * {@link #throttling(String, Duration)} for partition {@code partition} of a partitioned budget
   * (X3): only that partition is paused.
   */
  public FailureReport throttling(String budget, String partition, Duration retryAfter) {
    return new FailureReport(message, errorType, backtrace, retryAt, kill,
        Throttle.of(budget, partition, retryAfter));
  }
}

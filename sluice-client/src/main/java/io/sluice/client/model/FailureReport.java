package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;

/**
 * The body of {@code POST /jobs/{id}/failure} (API.md §8.7). {@code retryAt} bypasses backoff
 * and the retry limit; {@code kill} makes the job dead at once.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FailureReport(
    @JsonProperty("message") String message,
    @JsonProperty("error_type") String errorType,
    @JsonProperty("backtrace") String backtrace,
    @JsonProperty("retry_at") Instant retryAt,
    @JsonProperty("kill") Boolean kill) {

  public static FailureReport of(String message) {
    return new FailureReport(message, null, null, null, null);
  }

  /** The exception's class, message (its class name when it has none) and stack trace. */
  public static FailureReport of(Throwable error) {
    String message = error.getMessage() != null ? error.getMessage() : error.getClass().getName();
    StringWriter trace = new StringWriter();
    error.printStackTrace(new PrintWriter(trace));
    return new FailureReport(message, error.getClass().getName(), trace.toString(), null, null);
  }

  public FailureReport killed() {
    return new FailureReport(message, errorType, backtrace, retryAt, true);
  }

  public FailureReport retryingAt(Instant at) {
    return new FailureReport(message, errorType, backtrace, at, kill);
  }
}

package io.sluice.client;

import java.time.Duration;

/**
 * Thrown by a handler when a downstream service told it to back off (an HTTP 429 with
 * {@code Retry-After}, say). The worker reports the failure as throttled (X6): the server pauses
 * {@link #budget} for {@link #retryAfter}, so no job bound to it starts meanwhile, and puts this
 * job back in its place without counting the attempt against its retry limit.
 */
public class ThrottledException extends RuntimeException {
  private final String budget;
  private final Duration retryAfter;

  public ThrottledException(String budget, Duration retryAfter, String message) {
    this(budget, retryAfter, message, null);
  }

  public ThrottledException(String budget, Duration retryAfter, String message,
      Throwable cause) {
    super(message, cause);
    this.budget = budget;
    this.retryAfter = retryAfter;
  }

  /** The budget of the service that asked for the pause; the job must be bound to it. */
  public String budget() {
    return budget;
  }

  public Duration retryAfter() {
    return retryAfter;
  }
}

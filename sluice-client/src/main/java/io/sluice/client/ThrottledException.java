package io.sluice.client;

import java.time.Duration;

/**
 * Thrown by a handler when a downstream service told it to back off (an HTTP 429 with
 * {@code Retry-After}, say). The worker reports the failure as throttled (X6): the server pauses
 * {@link #budget} for {@link #retryAfter}, so no job bound to it starts meanwhile, and puts this
 * job back in its place without counting the attempt against its retry limit. For a partitioned
 * budget (X3) only the partition the job draws on is paused; {@link #partition} may name it.
 */
public class ThrottledException extends RuntimeException {
  private final String budget;
  private final String partition;
  private final Duration retryAfter;

  public ThrottledException(String budget, Duration retryAfter, String message) {
    this(budget, null, retryAfter, message, null);
  }

  public ThrottledException(String budget, Duration retryAfter, String message,
      Throwable cause) {
    this(budget, null, retryAfter, message, cause);
  }

  /** Throttles partition {@code partition} of the partitioned budget {@code budget} (X3). */
  public ThrottledException(String budget, String partition, Duration retryAfter,
      String message) {
    this(budget, partition, retryAfter, message, null);
  }

  public ThrottledException(String budget, String partition, Duration retryAfter,
      String message, Throwable cause) {
    super(message, cause);
    this.budget = budget;
    this.partition = partition;
    this.retryAfter = retryAfter;
  }

  /** The budget of the service that asked for the pause; the job must be bound to it. */
  public String budget() {
    return budget;
  }

  /**
   * The partition of {@link #budget} to pause (X3), which must be the one the job draws on;
   * null when not named (the job's own partition of a partitioned budget is then paused).
   */
  public String partition() {
    return partition;
  }

  public Duration retryAfter() {
    return retryAfter;
  }
}

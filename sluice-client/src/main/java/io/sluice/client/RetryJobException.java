package io.sluice.client;

import java.time.Instant;

/**
 * Thrown by a handler to fail its job and run it again at {@link #retryAt}, bypassing the
 * backoff and the retry limit.
 */
public class RetryJobException extends RuntimeException {
  private final Instant retryAt;

  public RetryJobException(Instant retryAt, String message) {
    this(retryAt, message, null);
  }

  public RetryJobException(Instant retryAt, String message, Throwable cause) {
    super(message, cause);
    this.retryAt = retryAt;
  }

  public Instant retryAt() {
    return retryAt;
  }
}

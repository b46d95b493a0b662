package io.sluice.client;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff between reconnection attempts, jittered so that many workers do not
 * return to a restarted server in lockstep.
 */
final class ReconnectDelay {
  private final long initialMs;
  private final long maxMs;
  private int failures;

  ReconnectDelay(Duration initial, Duration max) {
    this.initialMs = Math.max(1, initial.toMillis());
    this.maxMs = Math.max(initialMs, max.toMillis());
  }

  /** The wait before the next attempt: half to all of {@code initial × 2^failures}, capped. */
  long nextMs() {
    long ceiling = initialMs << Math.min(failures, 20);
    failures++;
    long capped = Math.min(maxMs, ceiling);
    return capped / 2 + ThreadLocalRandom.current().nextLong(capped / 2 + 1);
  }

  void reset() {
    failures = 0;
  }
}

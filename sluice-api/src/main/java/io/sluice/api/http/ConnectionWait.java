package io.sluice.api.http;

import io.sluice.api.HttpLimits;
import java.util.concurrent.TimeUnit;

/**
 * What one connection is waiting for, since when, and the timer that fires by the deadline its
 * {@link HttpLimits} set for that. Owned by the connection's event loop.
 */
final class ConnectionWait {
  /** What the connection waits for, and so which timeout applies. */
  enum Wait { NONE, IDLE, HEAD, BODY }

  private final HttpLimits limits;
  private final DeadlineTimer timer;
  private Wait wait = Wait.NONE;
  private long sinceNanos;
  private long heads;
  private long responses;

  ConnectionWait(HttpLimits limits, DeadlineTimer timer) {
    this.limits = limits;
    this.timer = timer;
  }

  /**
   * Restarts the clock when the connection starts waiting for something else (another head, or
   * idle after another response: {@code heads} or {@code responses} moved) or, inside a body,
   * when bytes arrived; then makes sure the timer fires by the deadline.
   */
  void refresh(Wait next, long heads, long responses, long nowNanos, boolean bytesArrived) {
    if (next != wait || heads != this.heads || responses != this.responses
        || (next == Wait.BODY && bytesArrived)) {
      wait = next;
      sinceNanos = nowNanos;
      this.heads = heads;
      this.responses = responses;
    }
    if (wait != Wait.NONE) {
      timer.fireBy(deadlineNanos(), nowNanos);
    }
  }

  Wait current() {
    return wait;
  }

  /** True when the connection has waited past its timeout for what it waits for. */
  boolean overdue(long nowNanos) {
    return wait != Wait.NONE && deadlineNanos() - nowNanos <= 0;
  }

  void cancel() {
    timer.cancel();
  }

  private long deadlineNanos() {
    long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs());
    return sinceNanos + Math.min(timeoutNanos, Long.MAX_VALUE / 4);
  }

  private long timeoutMs() {
    return switch (wait) {
      case IDLE -> limits.idleTimeoutMs();
      case HEAD -> limits.headerReadTimeoutMs();
      case BODY -> limits.bodyReadTimeoutMs();
      case NONE -> throw new IllegalArgumentException("no timeout while waiting for nothing");
    };
  }
}

package io.sluice.api.http;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One timer of one connection, made to fire no later than the earliest deadline asked for. It is
 * moved only when a deadline comes earlier than the pending firing, so a connection that keeps
 * pushing its deadline back costs nothing per request: the firing finds the deadline moved and
 * asks again. Owned by the connection's event loop.
 */
final class DeadlineTimer {
  private final EventExecutor loop;
  private final Runnable onFire;
  private ScheduledFuture<?> pending;
  private long pendingAtNanos;

  DeadlineTimer(EventExecutor loop, Runnable onFire) {
    this.loop = loop;
    this.onFire = onFire;
  }

  /** Makes sure the timer fires by {@code deadlineNanos} ({@link System#nanoTime} time). */
  void fireBy(long deadlineNanos, long nowNanos) {
    if (pending != null && pendingAtNanos - deadlineNanos <= 0) {
      return;
    }
    cancel();
    pendingAtNanos = deadlineNanos;
    pending = loop.schedule(this::fire, Math.max(0, deadlineNanos - nowNanos),
        TimeUnit.NANOSECONDS);
  }

  void cancel() {
    if (pending != null) {
      pending.cancel(false);
      pending = null;
    }
  }

  private void fire() {
    pending = null;
    onFire.run();
  }
}

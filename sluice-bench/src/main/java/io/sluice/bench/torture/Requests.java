package io.sluice.bench.torture;

import io.sluice.bench.BenchFailure;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The requests one generation has in flight, and the switch that ends the generation: once
 * {@link #stop()} has run, {@link #begin()} refuses, so no request of an old generation can start
 * after the main thread has moved on. Event loops call begin/end; the main thread stops and waits.
 */
final class Requests {

  /** Set in {@link #state} once stopped; the other bits count requests in flight. */
  private static final int STOPPED = 1 << 30;

  private final AtomicInteger state = new AtomicInteger();

  /** Counts a request about to be sent; false once stopped, and then it must not be sent. */
  boolean begin() {
    int s;
    do {
      s = state.get();
      if ((s & STOPPED) != 0) {
        return false;
      }
    } while (!state.compareAndSet(s, s + 1));
    return true;
  }

  /** A request begun earlier has its answer, or failed. */
  void end() {
    state.decrementAndGet();
  }

  boolean stopped() {
    return (state.get() & STOPPED) != 0;
  }

  void stop() {
    state.getAndUpdate(s -> s | STOPPED);
  }

  /** Waits until every begun request has ended; call after {@link #stop()}. */
  void awaitIdle(long timeoutMs, String what) {
    long deadline = System.nanoTime() + timeoutMs * 1_000_000;
    while ((state.get() & ~STOPPED) != 0) {
      if (System.nanoTime() > deadline) {
        throw new BenchFailure(what + ": " + (state.get() & ~STOPPED) + " requests still unanswered after "
            + timeoutMs + " ms");
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BenchFailure(what + " interrupted", e);
      }
    }
  }
}

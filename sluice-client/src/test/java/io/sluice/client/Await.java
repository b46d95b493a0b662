package io.sluice.client;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Polling with a deadline, so tests wait for outcomes instead of sleeping a fixed time. */
final class Await {
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private Await() {}

  static <T> T until(Supplier<T> probe, Predicate<T> done, String what) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    T last = probe.get();
    while (!done.test(last)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what + "; last value: " + last);
      }
      pause();
      last = probe.get();
    }
    return last;
  }

  static void until(BooleanSupplier condition, String what) {
    until(condition::getAsBoolean, Boolean::booleanValue, what);
  }

  private static void pause() {
    try {
      Thread.sleep(10);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted");
    }
  }
}

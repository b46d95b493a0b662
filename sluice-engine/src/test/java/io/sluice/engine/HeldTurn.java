package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds the engine thread inside a command until released: commands submitted meanwhile are
 * applied in that same turn, and nothing is committed or dispatched until then.
 */
final class HeldTurn {
  private HeldTurn() {}

  /** Returns once the engine thread is held; count the latch down to let it go. */
  static CountDownLatch hold(EngineLoop loop) throws InterruptedException {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    loop.submit((engine, nowMs) -> {
      entered.countDown();
      try {
        return release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    });
    assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
    return release;
  }
}

package io.sluice.engine;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Where the engine loop tests run the engine: on its own thread, or hosted on a single thread of
 * another owner as {@code sluice serve} hosts it on its one event loop. The hosted variants of the
 * loop tests run every scenario of their base class on a host, shut down after each test (after
 * the test's own {@code @AfterEach} has closed the loop).
 */
final class LoopHosts implements AfterEachCallback {
  private final boolean hosted;
  private ScheduledThreadPoolExecutor host;

  private LoopHosts(boolean hosted) {
    this.hosted = hosted;
  }

  static LoopHosts ownThread() {
    return new LoopHosts(false);
  }

  static LoopHosts hosted() {
    return new LoopHosts(true);
  }

  /** Places a started loop: moves it onto a new single-thread host, or leaves it be. */
  void place(EngineLoop loop) {
    if (hosted) {
      host = new ScheduledThreadPoolExecutor(1, runnable -> new Thread(runnable, "test-host"));
      loop.hostOn(host);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws InterruptedException {
    if (host != null) {
      host.shutdownNow();
      host.awaitTermination(10, TimeUnit.SECONDS);
      host = null;
    }
  }
}

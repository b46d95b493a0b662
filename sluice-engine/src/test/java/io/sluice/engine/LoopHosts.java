package io.sluice.engine;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Where the engine loop tests run the engine: on its own thread, or hosted on a single thread of
 * another owner as {@code sluice serve} hosts it on its one event loop. The hosted variants of the
 * loop tests run every scenario of their base class on a host.
 */
class LoopHosts {
  private ScheduledThreadPoolExecutor host;

  /** Moves a started loop onto a new single-thread host. */
  void hostOn(EngineLoop loop) {
    host = new ScheduledThreadPoolExecutor(1, runnable -> new Thread(runnable, "test-host"));
    loop.hostOn(host);
  }

  /** After the loop has closed: the host goes away. */
  void shutDown() throws InterruptedException {
    if (host != null) {
      host.shutdownNow();
      host.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}

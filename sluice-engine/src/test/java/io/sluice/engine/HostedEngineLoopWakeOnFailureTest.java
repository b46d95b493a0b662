package io.sluice.engine;

import org.junit.jupiter.api.AfterEach;

/** Every scenario of {@link EngineLoopWakeOnFailureTest} with the engine hosted on another thread. */
class HostedEngineLoopWakeOnFailureTest extends EngineLoopWakeOnFailureTest {
  private final LoopHosts hosts = new LoopHosts();

  @Override
  void placed(EngineLoop loop) {
    hosts.hostOn(loop);
  }

  @AfterEach
  @Override
  void stop() {
    super.stop();
    try {
      hosts.shutDown();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package io.sluice.engine;

import org.junit.jupiter.api.AfterEach;

/** Every scenario of {@link EngineLoopRollbackTest} with the engine hosted on another thread. */
class HostedEngineLoopRollbackTest extends EngineLoopRollbackTest {
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

package io.sluice.engine;

/** Every scenario of {@link EngineLoopRollbackTest} with the engine hosted on another thread. */
class HostedEngineLoopRollbackTest extends EngineLoopRollbackTest {
  @Override
  LoopHosts hosts() {
    return LoopHosts.hosted();
  }
}

package io.sluice.engine;

/** Every scenario of {@link EngineLoopTest} with the engine hosted on another thread. */
class HostedEngineLoopTest extends EngineLoopTest {
  @Override
  LoopHosts hosts() {
    return LoopHosts.hosted();
  }
}

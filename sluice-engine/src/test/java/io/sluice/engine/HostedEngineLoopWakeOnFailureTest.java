package io.sluice.engine;

/** Every scenario of {@link EngineLoopWakeOnFailureTest} with the engine hosted on another thread. */
class HostedEngineLoopWakeOnFailureTest extends EngineLoopWakeOnFailureTest {
  @Override
  LoopHosts hosts() {
    return LoopHosts.hosted();
  }
}

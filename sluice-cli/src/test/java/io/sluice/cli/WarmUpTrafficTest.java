package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.EngineConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The start-up warm-up's traffic reaches the throwaway servers and comes back whole. */
@ExtendWith(RestoresDefaultLogging.class)
class WarmUpTrafficTest {
  @Test
  void takesAndAcknowledgesEveryJobItEnqueues() {
    // 40 in the rehearsal, half of them in bulk; then 240 bulk (90% in bulk), then 120 singles.
    int done = WarmUp.run(EngineConfig.defaults(), 400, () -> false);

    assertThat(done).isEqualTo(400);
  }

  @Test
  void endsEarlyWhenTheServerIsAskedToStop() {
    assertThat(WarmUp.run(EngineConfig.defaults(), 400, () -> true)).isZero();
  }
}

package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The engine benchmark measures what it says: each round delivers and forgets every job. */
class EngineBenchmarkTest {
  @Test
  void aRoundDeliversEveryJobOnceAndLeavesNoneHeld() {
    EngineBenchmark benchmark = new EngineBenchmark();
    benchmark.open();
    for (int round = 1; round <= 3; round++) {
      benchmark.nextJobs();
      assertThat(benchmark.enqueueAndDrain()).isEqualTo(HotPathJobs.JOBS);
      assertThat(benchmark.received()).isEqualTo(round * HotPathJobs.JOBS);
      assertThat(benchmark.heldJobs()).isZero();
    }
  }
}

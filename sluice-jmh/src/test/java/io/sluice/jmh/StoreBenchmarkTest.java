package io.sluice.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The store benchmark measures what it says: each round leaves no job behind. */
class StoreBenchmarkTest {
  @Test
  void aRoundEnqueuesAndCompletesEveryJob() throws Exception {
    StoreBenchmark benchmark = new StoreBenchmark();
    benchmark.open();
    try {
      benchmark.nextJobs();
      benchmark.enqueueAndComplete();
      benchmark.nextJobs();
      benchmark.enqueueAndComplete();
      assertThat(benchmark.storedPayloads()).isZero();
    } finally {
      benchmark.close();
    }
  }
}

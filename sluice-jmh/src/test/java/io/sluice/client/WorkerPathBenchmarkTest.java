package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.client.model.Job;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The worker path benchmark measures what it says: every job read whole, every handler called. */
class WorkerPathBenchmarkTest {
  @Test
  void everyLineIsReadIntoAJobWithItsPayload() throws Exception {
    List<Job> jobs = new WorkerPathBenchmark().readTakeStream();

    assertThat(jobs).hasSize(WorkerPathBenchmark.JOBS);
    Job last = jobs.get(WorkerPathBenchmark.JOBS - 1);
    assertThat(last.type()).isEqualTo(WorkerPathBenchmark.TYPE);
    assertThat(last.payload().get("seq").asInt()).isEqualTo(WorkerPathBenchmark.JOBS - 1);
    assertThat(last.dequeuedAt()).isNotNull();
  }

  @Test
  void everyJobReachesItsHandlerWithItsPayloadBound() throws Exception {
    WorkerPathBenchmark benchmark = new WorkerPathBenchmark();

    long sum = benchmark.bindAndHandle();

    int n = WorkerPathBenchmark.JOBS;
    assertThat(sum).isEqualTo((long) n * (n - 1) / 2);
  }
}

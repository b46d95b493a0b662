package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThroughputResultTest {
  private static final int JOBS = 100_000;

  private static ThroughputResult result(long enqueueServerCpuNanos, long drainServerCpuNanos) {
    return new ThroughputResult(JOBS, 1000, 4, 4, 16,
        500_000_000L, 100, 15.0, enqueueServerCpuNanos,
        true, 2_000_000_000L, 40.0, drainServerCpuNanos,
        6250, 0, 0, new DrainTracker.Tally(JOBS, 0, 0, 0, JOBS, 0));
  }

  @Test
  void serverCpuPerJobFromEachPhasesCpuTime() {
    ThroughputResult r = result(860_000_000L, 1_850_000_000L);

    Map<String, Object> m = r.toMap();
    assertThat(m).containsEntry("enqueue_server_cpu_us_per_job", 8.6)
        .containsEntry("drain_server_cpu_us_per_job", 18.5)
        .containsEntry("enqueue_jobs_per_s", 200_000L)
        .containsEntry("drain_jobs_per_s", 50_000L);
    assertThat(r.describe())
        .contains("4 lanes; bench CPU 15% of a core; server CPU 8.6 us/job)")
        .contains("bench CPU 40% of a core; server CPU 18.5 us/job)");
  }

  @Test
  void unknownServerCpuIsLeftOut() {
    ThroughputResult r = result(-1, -1);

    assertThat(r.toMap()).doesNotContainKeys("enqueue_server_cpu_us_per_job",
        "drain_server_cpu_us_per_job");
    assertThat(r.describe()).doesNotContain("server CPU");
  }

  @Test
  void mediansTakeTheServerCpuAcrossRuns() {
    Map<String, Object> m = Medians.of(java.util.List.of(
        result(700_000_000L, 1_800_000_000L).toMap(),
        result(900_000_000L, 2_200_000_000L).toMap(),
        result(800_000_000L, 1_900_000_000L).toMap()));

    assertThat(m).containsEntry("enqueue_server_cpu_us_per_job", 8L)
        .containsEntry("drain_server_cpu_us_per_job", 19L);
  }
}

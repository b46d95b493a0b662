package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LatencyResultTest {
  private static final int JOBS = 5_000;

  private static LatencyResult result(long serverCpuNanos) {
    Histogram endToEnd = new Histogram(3);
    Histogram enqueueToCreated = new Histogram(3);
    for (int i = 0; i < JOBS; i++) {
      endToEnd.recordValue(300_000);
      enqueueToCreated.recordValue(200_000);
    }
    return new LatencyResult(JOBS, 500, 499.9, 1_000_000, 4, 16, true, endToEnd,
        enqueueToCreated, JOBS, 0, 0, 0, serverCpuNanos);
  }

  @Test
  void serverCpuPerJobFromTheCpuTimeOfTheRun() {
    LatencyResult r = result(1_850_000_000L);

    assertThat(r.toMap()).containsEntry("server_cpu_us_per_job", 370.0);
    assertThat(r.describe()).contains("max send lag 1.00 ms; server CPU 370.0 us/job)");
  }

  @Test
  void unknownServerCpuIsLeftOut() {
    LatencyResult r = result(-1);

    assertThat(r.toMap()).doesNotContainKey("server_cpu_us_per_job");
    assertThat(r.describe()).doesNotContain("server CPU").contains("max send lag 1.00 ms)");
  }

  @Test
  void mediansTakeTheServerCpuAcrossRuns() {
    Map<String, Object> m = Medians.of(List.of(result(2_000_000_000L).toMap(),
        result(1_500_000_000L).toMap(), result(1_750_000_000L).toMap()));

    assertThat(m).containsEntry("server_cpu_us_per_job", 350L);
  }
}

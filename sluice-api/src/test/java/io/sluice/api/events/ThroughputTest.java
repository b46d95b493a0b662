package io.sluice.api.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.metrics.JobTotals;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The dashboard's jobs-per-second history: differences of running totals, 15 minutes kept. */
class ThroughputTest {
  private final AtomicReference<JobTotals> totals = new AtomicReference<>(new JobTotals(5, 2, 1));
  private final Throughput throughput = new Throughput(totals::get, () -> 3);

  @Test
  void eachSampleCountsWhatHappenedSinceThePreviousOne() {
    totals.set(new JobTotals(15, 4, 1));
    throughput.sample(1_000);
    totals.set(new JobTotals(16, 9, 3));
    throughput.sample(2_000);

    assertThat(throughput.since(Long.MIN_VALUE)).containsExactly(
        new Throughput.Sample(1_000, 10, 2, 0),
        new Throughput.Sample(2_000, 1, 5, 2));
    assertThat(throughput.since(1_000)).containsExactly(new Throughput.Sample(2_000, 1, 5, 2));
    assertThat(throughput.since(2_000)).isEmpty();
    assertThat(throughput.workers()).isEqualTo(3);
  }

  @Test
  void keepsTheLastFifteenMinutesOldestFirst() {
    int seconds = Throughput.KEPT_SECONDS + 10;
    for (int second = 1; second <= seconds; second++) {
      totals.set(new JobTotals(5 + second, 2, 1));
      throughput.sample(second * 1_000L);
    }

    var kept = throughput.since(Long.MIN_VALUE);
    assertThat(kept).hasSize(Throughput.KEPT_SECONDS);
    assertThat(kept.get(0).atMs()).isEqualTo(11_000);
    assertThat(kept.get(kept.size() - 1).atMs()).isEqualTo(seconds * 1_000L);
    assertThat(kept).allMatch(sample -> sample.enqueued() == 1);
  }
}

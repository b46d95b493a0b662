package io.sluice.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.api.Test;

/**
 * The job event families as a scrape reads them: from the engine thread's tallies as they stand
 * once it has ended a turn, with no copy made at the end of each.
 */
class JobEventMetricsTest {
  private final JobEventMetrics metrics = new JobEventMetrics(new PrometheusRegistry());

  @Test
  void aScrapeReadsWhatTheEngineCountedByTheEndOfItsTurn() {
    metrics.enqueued("emails");
    metrics.enqueued("emails");
    metrics.dispatched("emails", 3);
    metrics.completed("emails", 40);
    metrics.failed("emails", 2_000, true);
    metrics.published();

    MetricSnapshots scraped = metrics.collect();

    assertThat(counter(scraped, "sluice_jobs_enqueued")).isEqualTo(2);
    assertThat(counter(scraped, "sluice_jobs_completed")).isEqualTo(1);
    assertThat(counter(scraped, "sluice_jobs_failed")).isEqualTo(1);
    assertThat(counter(scraped, "sluice_jobs_dead")).isEqualTo(1);
    HistogramSnapshot.HistogramDataPointSnapshot waited = histogram(scraped, "sluice_job_wait_seconds");
    assertThat(waited.getCount()).isEqualTo(1);
    assertThat(waited.getSum()).isCloseTo(0.003, within(1e-9));
    // 3 ms: over the 1 ms bound, within the 5 ms one.
    assertThat(waited.getClassicBuckets().getCount(0)).isZero();
    assertThat(waited.getClassicBuckets().getCount(1)).isEqualTo(1);
    HistogramSnapshot.HistogramDataPointSnapshot ran = histogram(scraped, "sluice_job_run_seconds");
    assertThat(ran.getCount()).isEqualTo(2);
    assertThat(ran.getSum()).isCloseTo(2.04, within(1e-9));
    assertThat(metrics.totals()).isEqualTo(new JobTotals(2, 1, 1));
  }

  @Test
  void beforeTheEngineEndsItsFirstTurnAScrapeSeesNothing() {
    metrics.enqueued("emails");

    assertThat(metrics.totals()).isEqualTo(new JobTotals(0, 0, 0));
    assertThat(metrics.collect().stream()).allSatisfy(family ->
        assertThat(family.getDataPoints()).isEmpty());
  }

  @Test
  void aQueueWithNothingCountedHasNoSeries() {
    metrics.enqueued("emails");
    metrics.published();

    assertThat(histogram(metrics.collect(), "sluice_job_wait_seconds")).isNull();
  }

  private static long counter(MetricSnapshots scraped, String name) {
    CounterSnapshot counter = (CounterSnapshot) family(scraped, name);
    return (long) counter.getDataPoints().get(0).getValue();
  }

  private static HistogramSnapshot.HistogramDataPointSnapshot histogram(MetricSnapshots scraped,
      String name) {
    HistogramSnapshot histogram = (HistogramSnapshot) family(scraped, name);
    return histogram.getDataPoints().isEmpty() ? null : histogram.getDataPoints().get(0);
  }

  private static MetricSnapshot family(MetricSnapshots scraped, String name) {
    for (MetricSnapshot family : scraped) {
      if (family.getMetadata().getPrometheusName().equals(name)) {
        return family;
      }
    }
    throw new AssertionError("no family " + name);
  }
}

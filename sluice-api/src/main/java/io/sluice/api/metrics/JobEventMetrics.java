package io.sluice.api.metrics;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import io.sluice.engine.EngineObserver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * What the engine tells its observer, as metrics: jobs enqueued, completed, failed and dead per
 * queue, how long jobs waited and ran, and how long store commits took.
 *
 * <p>Job events come from the engine thread, once or twice per job, so they are counted in plain
 * per-queue tallies ({@link QueueTally}) that a scrape reads where they stand, once it has read
 * the turn the engine last published. Counting every job through the library's thread-safe data
 * points cost the drain about 5%; copying the changed tallies at the end of every engine turn
 * cost a low rate about 1.4% of the server's CPU. A series appears once it counts.
 * Commit times come from the commit thread too and go straight to a library histogram.
 */
final class JobEventMetrics implements EngineObserver, MultiCollector {
  /** From a millisecond to an hour: jobs wait behind budgets and schedules for long. */
  private static final double[] JOB_SECONDS =
      {0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600};
  /** {@link #JOB_SECONDS} and the bucket that takes the rest. */
  private static final double[] JOB_BUCKETS = withInfinity(JOB_SECONDS);
  /** From 50 µs (a buffered WAL append) to a second (a stalled fsync). */
  private static final double[] COMMIT_SECONDS =
      {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};
  private static final double MS_PER_SECOND = 1_000.0;
  private static final double NANOS_PER_SECOND = 1_000_000_000.0;

  /** Counter names go without {@code _total}, which the exposition formats append. */
  private static final MetricMetadata ENQUEUED =
      new MetricMetadata("sluice_jobs_enqueued", "Jobs enqueued (durable)");
  private static final MetricMetadata COMPLETED =
      new MetricMetadata("sluice_jobs_completed", "Jobs a worker reported successful");
  private static final MetricMetadata FAILED =
      new MetricMetadata("sluice_jobs_failed", "Failures workers reported, retried or not");
  private static final MetricMetadata DEAD = new MetricMetadata("sluice_jobs_dead",
      "Jobs that failed for good (retries exhausted or killed)");
  private static final MetricMetadata WAIT = new MetricMetadata("sluice_job_wait_seconds",
      "Time from a job becoming ready to its dispatch", Unit.SECONDS);
  private static final MetricMetadata RUN = new MetricMetadata("sluice_job_run_seconds",
      "Time from a job's dispatch to its success or failure report", Unit.SECONDS);

  /** Queue → its tally; added to by the engine thread, read by scrapes. */
  private final Map<String, QueueTally> tallies = new ConcurrentHashMap<>();
  /** Turns the engine ended; written by its thread only, read first by every scrape. */
  private volatile long publishedTurns;
  private final DistributionDataPoint bufferedCommits;
  private final DistributionDataPoint syncedCommits;

  JobEventMetrics(PrometheusRegistry registry) {
    Histogram commits = Histogram.builder().name("sluice_commit_seconds")
        .help("Time of each store commit, by whether it was fsynced").unit(Unit.SECONDS)
        .labelNames("mode").classicOnly().classicUpperBounds(COMMIT_SECONDS)
        .withoutExemplars().register(registry);
    bufferedCommits = commits.labelValues("buffered");
    syncedCommits = commits.labelValues("fsync");
    registry.register(this);
  }

  private static double[] withInfinity(double[] bounds) {
    double[] all = Arrays.copyOf(bounds, bounds.length + 1);
    all[bounds.length] = Double.POSITIVE_INFINITY;
    return all;
  }

  // ---- the engine thread's side --------------------------------------------------------------

  private QueueTally tally(String queue) {
    QueueTally tally = tallies.get(queue);
    if (tally == null) {
      tally = new QueueTally(queue, JOB_SECONDS);
      tallies.put(queue, tally);
    }
    return tally;
  }

  @Override
  public void enqueued(String queue) {
    tally(queue).enqueued();
  }

  @Override
  public void dispatched(String queue, long waitedMs) {
    tally(queue).dispatched(waitedMs / MS_PER_SECOND);
  }

  @Override
  public void completed(String queue, long ranMs) {
    tally(queue).reported(ranMs / MS_PER_SECOND, true, false);
  }

  @Override
  public void failed(String queue, long ranMs, boolean died) {
    tally(queue).reported(ranMs / MS_PER_SECOND, false, died);
  }

  /**
   * The end of an engine turn: a scrape that reads {@link #publishedTurns} and then the tallies
   * sees every count made until here. One volatile write per turn, none per count.
   */
  @Override
  public void published() {
    publishedTurns = publishedTurns + 1;
  }

  @Override
  public void committed(boolean synced, long nanos) {
    (synced ? syncedCommits : bufferedCommits).observe(nanos / NANOS_PER_SECOND);
  }

  // ---- the scrape's side ---------------------------------------------------------------------

  /**
   * The tallies, once the engine has ended a turn: read after {@link #publishedTurns}, their
   * counts are at least those of the last turn ended (and perhaps some of the one under way).
   */
  private Iterable<QueueTally> publishedTallies() {
    return publishedTurns == 0 ? List.of() : tallies.values();
  }

  /** The counters summed over queues. */
  JobTotals totals() {
    long enqueued = 0;
    long completed = 0;
    long failed = 0;
    for (QueueTally tally : publishedTallies()) {
      QueueTally.Snapshot queue = tally.snapshot();
      enqueued += queue.enqueued();
      completed += queue.completed();
      failed += queue.failed();
    }
    return new JobTotals(enqueued, completed, failed);
  }

  @Override
  public MetricSnapshots collect() {
    List<QueueTally.Snapshot> queues = new ArrayList<>();
    for (QueueTally tally : publishedTallies()) {
      queues.add(tally.snapshot());
    }
    queues.sort((a, b) -> a.queue().compareTo(b.queue()));
    return new MetricSnapshots(
        counter(ENQUEUED, queues, QueueTally.Snapshot::enqueued),
        counter(COMPLETED, queues, QueueTally.Snapshot::completed),
        counter(FAILED, queues, QueueTally.Snapshot::failed),
        counter(DEAD, queues, QueueTally.Snapshot::dead),
        histogram(WAIT, queues, QueueTally.Snapshot::waitBuckets, QueueTally.Snapshot::waitSum),
        histogram(RUN, queues, QueueTally.Snapshot::runBuckets, QueueTally.Snapshot::runSum));
  }

  private static CounterSnapshot counter(MetricMetadata metadata,
      List<QueueTally.Snapshot> queues, ToLongFunction<QueueTally.Snapshot> value) {
    List<CounterDataPointSnapshot> points = new ArrayList<>();
    for (QueueTally.Snapshot queue : queues) {
      long n = value.applyAsLong(queue);
      if (n > 0) {
        points.add(new CounterDataPointSnapshot(n, Labels.of("queue", queue.queue()), null, 0));
      }
    }
    return new CounterSnapshot(metadata, points);
  }

  private static HistogramSnapshot histogram(MetricMetadata metadata,
      List<QueueTally.Snapshot> queues, Function<QueueTally.Snapshot, long[]> buckets,
      java.util.function.ToDoubleFunction<QueueTally.Snapshot> sum) {
    List<HistogramDataPointSnapshot> points = new ArrayList<>();
    for (QueueTally.Snapshot queue : queues) {
      long[] counts = buckets.apply(queue);
      if (Arrays.stream(counts).sum() > 0) {
        points.add(new HistogramDataPointSnapshot(ClassicHistogramBuckets.of(JOB_BUCKETS, counts),
            sum.applyAsDouble(queue), Labels.of("queue", queue.queue()), null, 0));
      }
    }
    return new HistogramSnapshot(metadata, points);
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(ENQUEUED.getPrometheusName(), COMPLETED.getPrometheusName(),
        FAILED.getPrometheusName(), DEAD.getPrometheusName(), WAIT.getPrometheusName(),
        RUN.getPrometheusName());
  }
}

package io.sluice.api.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import io.sluice.engine.EngineObserver;
import java.util.HashMap;
import java.util.Map;

/**
 * Counts what the engine tells its observer: jobs enqueued, completed, failed and dead per queue,
 * how long jobs waited and ran, and how long store commits took. Called on the engine and commit
 * threads, so every call is a lock-free increment of a Prometheus data point. The job events come
 * from the engine thread alone, which keeps each queue's data points at hand: resolving them by
 * label on every job cost the drain several per cent.
 */
final class JobEventMetrics implements EngineObserver {
  /** From a millisecond to an hour: jobs wait behind budgets and schedules for long. */
  private static final double[] JOB_SECONDS =
      {0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600};
  /** From 50 µs (a buffered WAL append) to a second (a stalled fsync). */
  private static final double[] COMMIT_SECONDS =
      {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};
  private static final double MS_PER_SECOND = 1_000.0;
  private static final double NANOS_PER_SECOND = 1_000_000_000.0;

  private final Counter enqueued;
  private final Counter completed;
  private final Counter failed;
  private final Counter dead;
  private final Histogram waitSeconds;
  private final Histogram runSeconds;
  private final DistributionDataPoint bufferedCommits;
  private final DistributionDataPoint syncedCommits;
  /** Queue → its data points; engine thread only. */
  private final Map<String, QueueSeries> queues = new HashMap<>();

  /** One queue's data points, each resolved when first used, so a series exists once it counts. */
  private final class QueueSeries {
    private final String queue;
    private CounterDataPoint enqueuedPoint;
    private CounterDataPoint completedPoint;
    private CounterDataPoint failedPoint;
    private CounterDataPoint deadPoint;
    private DistributionDataPoint waitPoint;
    private DistributionDataPoint runPoint;

    QueueSeries(String queue) {
      this.queue = queue;
    }

    CounterDataPoint enqueued() {
      return enqueuedPoint != null ? enqueuedPoint : (enqueuedPoint = enqueued.labelValues(queue));
    }

    CounterDataPoint completed() {
      return completedPoint != null
          ? completedPoint : (completedPoint = completed.labelValues(queue));
    }

    CounterDataPoint failed() {
      return failedPoint != null ? failedPoint : (failedPoint = failed.labelValues(queue));
    }

    CounterDataPoint dead() {
      return deadPoint != null ? deadPoint : (deadPoint = dead.labelValues(queue));
    }

    DistributionDataPoint waitSeconds() {
      return waitPoint != null ? waitPoint : (waitPoint = waitSeconds.labelValues(queue));
    }

    DistributionDataPoint runSeconds() {
      return runPoint != null ? runPoint : (runPoint = runSeconds.labelValues(queue));
    }
  }

  JobEventMetrics(PrometheusRegistry registry) {
    enqueued = perQueue("sluice_jobs_enqueued_total", "Jobs enqueued (durable)", registry);
    completed = perQueue("sluice_jobs_completed_total",
        "Jobs a worker reported successful", registry);
    failed = perQueue("sluice_jobs_failed_total",
        "Failures workers reported, retried or not", registry);
    dead = perQueue("sluice_jobs_dead_total",
        "Jobs that failed for good (retries exhausted or killed)", registry);
    waitSeconds = seconds("sluice_job_wait_seconds",
        "Time from a job becoming ready to its dispatch", JOB_SECONDS, "queue")
        .register(registry);
    runSeconds = seconds("sluice_job_run_seconds",
        "Time from a job's dispatch to its success or failure report", JOB_SECONDS, "queue")
        .register(registry);
    Histogram commits = seconds("sluice_commit_seconds",
        "Time of each store commit, by whether it was fsynced", COMMIT_SECONDS, "mode")
        .register(registry);
    bufferedCommits = commits.labelValues("buffered");
    syncedCommits = commits.labelValues("fsync");
  }

  private static Counter perQueue(String name, String help, PrometheusRegistry registry) {
    return Counter.builder().name(name).help(help).labelNames("queue").withoutExemplars()
        .register(registry);
  }

  private static Histogram.Builder seconds(String name, String help, double[] bounds,
      String label) {
    return Histogram.builder().name(name).help(help).unit(Unit.SECONDS).labelNames(label)
        .classicOnly().classicUpperBounds(bounds).withoutExemplars();
  }

  private QueueSeries series(String queue) {
    QueueSeries series = queues.get(queue);
    if (series == null) {
      series = new QueueSeries(queue);
      queues.put(queue, series);
    }
    return series;
  }

  @Override
  public void enqueued(String queue) {
    series(queue).enqueued().inc();
  }

  @Override
  public void dispatched(String queue, long waitedMs) {
    series(queue).waitSeconds().observe(waitedMs / MS_PER_SECOND);
  }

  @Override
  public void completed(String queue, long ranMs) {
    QueueSeries series = series(queue);
    series.completed().inc();
    series.runSeconds().observe(ranMs / MS_PER_SECOND);
  }

  @Override
  public void failed(String queue, long ranMs, boolean died) {
    QueueSeries series = series(queue);
    series.failed().inc();
    if (died) {
      series.dead().inc();
    }
    series.runSeconds().observe(ranMs / MS_PER_SECOND);
  }

  @Override
  public void committed(boolean synced, long nanos) {
    (synced ? syncedCommits : bufferedCommits).observe(nanos / NANOS_PER_SECOND);
  }
}

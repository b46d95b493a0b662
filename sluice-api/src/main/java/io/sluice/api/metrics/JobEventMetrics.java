package io.sluice.api.metrics;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import io.sluice.engine.EngineObserver;

/**
 * Counts what the engine tells its observer: jobs enqueued, completed, failed and dead per queue,
 * how long jobs waited and ran, and how long store commits took. Called on the engine and commit
 * threads, so every call is a lock-free increment of a Prometheus data point.
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

  @Override
  public void enqueued(String queue) {
    enqueued.labelValues(queue).inc();
  }

  @Override
  public void dispatched(String queue, long waitedMs) {
    waitSeconds.labelValues(queue).observe(waitedMs / MS_PER_SECOND);
  }

  @Override
  public void completed(String queue, long ranMs) {
    completed.labelValues(queue).inc();
    runSeconds.labelValues(queue).observe(ranMs / MS_PER_SECOND);
  }

  @Override
  public void failed(String queue, long ranMs, boolean died) {
    failed.labelValues(queue).inc();
    if (died) {
      dead.labelValues(queue).inc();
    }
    runSeconds.labelValues(queue).observe(ranMs / MS_PER_SECOND);
  }

  @Override
  public void committed(boolean synced, long nanos) {
    (synced ? syncedCommits : bufferedCommits).observe(nanos / NANOS_PER_SECOND);
  }
}

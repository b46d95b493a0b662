package io.sluice.api.metrics;

/**
 * Jobs enqueued, completed and failed (every failure report, retried or not) since the server
 * started, summed over queues: the counters behind the dashboard's throughput chart.
 */
public record JobTotals(long enqueued, long completed, long failed) {
  public static final JobTotals NONE = new JobTotals(0, 0, 0);
}

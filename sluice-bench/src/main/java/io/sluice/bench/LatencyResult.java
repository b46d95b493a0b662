package io.sluice.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Outcome of workload (b) for one run, with the human and the machine-readable rendering. The
 * server's CPU time is negative when unknown (a server this bench did not start).
 */
record LatencyResult(
    int jobs, double rate, double achievedRate, long maxSendLagNanos, int workers, int prefetch,
    boolean streamsReadyBeforeStart,
    Histogram endToEnd, Histogram enqueueToCreated,
    long received, long duplicates, long strays, long ackErrors, long serverCpuNanos) {

  boolean ok() {
    return received == jobs && duplicates == 0 && ackErrors == 0;
  }

  /**
   * Everything the server's process spent while the jobs went through it, per job: at a low rate
   * each job pays for its own requests, answers and commits, which bulk traffic shares out, and
   * the server's idle and background work weighs more. NaN when unknown.
   */
  double serverMicrosPerJob() {
    return ThroughputResult.microsPerJob(serverCpuNanos, jobs);
  }

  String describe() {
    return String.format(
        "[b] enqueue->receive ms: p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  (%,d jobs at %.0f/s, achieved %.1f/s, max send lag %.2f ms%s)%n"
            + "[b] enqueue->201     ms: p50 %.3f  p99 %.3f  max %.3f%n"
            + "[b] verify  received %,d, duplicates %,d, strays %,d, ack errors %,d%s -> %s",
        ms(endToEnd, 50), ms(endToEnd, 90), ms(endToEnd, 99), ms(endToEnd, 99.9), ms(endToEnd.getMaxValue()),
        jobs, rate, achievedRate, ms(maxSendLagNanos),
        ThroughputResult.serverCpu(serverMicrosPerJob()),
        ms(enqueueToCreated, 50), ms(enqueueToCreated, 99), ms(enqueueToCreated.getMaxValue()),
        received, duplicates, strays, ackErrors,
        streamsReadyBeforeStart ? "" : ", (take stream heads not seen before start)",
        ok() ? "OK" : "FAILED");
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", ok());
    m.put("jobs", jobs);
    m.put("rate", rate);
    m.put("achieved_rate", ThroughputResult.round(achievedRate, 1));
    m.put("max_send_lag_ms", ThroughputResult.round(ms(maxSendLagNanos), 3));
    m.put("workers", workers);
    m.put("prefetch", prefetch);
    m.put("e2e_p50_ms", r(ms(endToEnd, 50)));
    m.put("e2e_p90_ms", r(ms(endToEnd, 90)));
    m.put("e2e_p99_ms", r(ms(endToEnd, 99)));
    m.put("e2e_p999_ms", r(ms(endToEnd, 99.9)));
    m.put("e2e_max_ms", r(ms(endToEnd.getMaxValue())));
    m.put("enqueue_p50_ms", r(ms(enqueueToCreated, 50)));
    m.put("enqueue_p99_ms", r(ms(enqueueToCreated, 99)));
    m.put("enqueue_max_ms", r(ms(enqueueToCreated.getMaxValue())));
    ThroughputResult.putIfKnown(m, "server_cpu_us_per_job", serverMicrosPerJob());
    m.put("received", received);
    m.put("duplicates", duplicates);
    m.put("strays", strays);
    m.put("ack_errors", ackErrors);
    m.put("streams_ready_before_start", streamsReadyBeforeStart);
    return m;
  }

  private static double ms(Histogram h, double percentile) {
    return ms(h.getValueAtPercentile(percentile));
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  private static double r(double v) {
    return ThroughputResult.round(v, 3);
  }
}

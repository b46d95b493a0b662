package io.sluice.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Outcome of workload (a) for one run, with the human and the machine-readable rendering. The
 * server's CPU time per phase is negative when unknown (a server this bench did not start).
 */
record ThroughputResult(
    int jobs, int batch, int lanes, int workers, int prefetch,
    long enqueueNanos, int enqueueRequests, double enqueueClientCpuPct, long enqueueServerCpuNanos,
    boolean primedBeforeGo, long drainNanos, double drainClientCpuPct, long drainServerCpuNanos,
    long ackRequests, long heartbeats, long foreignLines, DrainTracker.Tally tally) {

  double enqueueRate() {
    return jobs / (enqueueNanos / 1e9);
  }

  double drainRate() {
    return jobs / (drainNanos / 1e9);
  }

  /** Server CPU per job in microseconds, or NaN when unknown. */
  double enqueueServerMicrosPerJob() {
    return microsPerJob(enqueueServerCpuNanos);
  }

  double drainServerMicrosPerJob() {
    return microsPerJob(drainServerCpuNanos);
  }

  private double microsPerJob(long cpuNanos) {
    return microsPerJob(cpuNanos, jobs);
  }

  /** CPU time spread over jobs, in microseconds each; NaN when the time is unknown (negative). */
  static double microsPerJob(long cpuNanos, int jobs) {
    return cpuNanos < 0 ? Double.NaN : cpuNanos / 1e3 / jobs;
  }

  /** Exactly once and all acked: anything else means the numbers are not trustworthy. */
  boolean ok() {
    return tally.missing() == 0 && tally.duplicates() == 0 && tally.acked() == jobs
        && tally.ackNotFound() == 0;
  }

  String describe() {
    return describe("[a]");
  }

  /** @param label line prefix, e.g. "[a]" */
  String describe(String label) {
    return String.format(
        "[a] enqueue %,d jobs in %.3f s = %,.0f jobs/s (%d bulk requests of %d, %d lanes; bench CPU %.0f%% of a core%s)%n"
            + "[a] drain   %,d jobs in %.3f s = %,.0f jobs/s (%d streams, prefetch %d, %,d bulk acks, %.1f ids/ack;"
            + " bench CPU %.0f%% of a core%s%s)%n"
            + "[a] verify  received %,d, missing %,d, duplicates %,d, strays %,d, acked %,d, ack not_found %,d,"
            + " heartbeats %,d, unparsable lines %,d -> %s",
        jobs, enqueueNanos / 1e9, enqueueRate(), enqueueRequests, batch, lanes, enqueueClientCpuPct,
        serverCpu(enqueueServerMicrosPerJob()),
        jobs, drainNanos / 1e9, drainRate(), workers, prefetch, ackRequests,
        ackRequests == 0 ? 0.0 : (double) (tally.received() + tally.duplicates() + tally.strays()) / ackRequests,
        drainClientCpuPct, serverCpu(drainServerMicrosPerJob()),
        primedBeforeGo ? "" : "; prefetch windows NOT full at go",
        tally.received(), tally.missing(), tally.duplicates(), tally.strays(), tally.acked(),
        tally.ackNotFound(), heartbeats, foreignLines, ok() ? "OK" : "FAILED").replace("[a]", label);
  }

  static String serverCpu(double microsPerJob) {
    return Double.isNaN(microsPerJob) ? "" : String.format("; server CPU %.1f us/job", microsPerJob);
  }

  Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", ok());
    m.put("jobs", jobs);
    m.put("batch", batch);
    m.put("lanes", lanes);
    m.put("workers", workers);
    m.put("prefetch", prefetch);
    m.put("enqueue_s", round(enqueueNanos / 1e9, 4));
    m.put("enqueue_jobs_per_s", Math.round(enqueueRate()));
    m.put("enqueue_client_cpu_pct", round(enqueueClientCpuPct, 1));
    putIfKnown(m, "enqueue_server_cpu_us_per_job", enqueueServerMicrosPerJob());
    m.put("primed_before_go", primedBeforeGo);
    m.put("drain_s", round(drainNanos / 1e9, 4));
    m.put("drain_jobs_per_s", Math.round(drainRate()));
    m.put("drain_client_cpu_pct", round(drainClientCpuPct, 1));
    putIfKnown(m, "drain_server_cpu_us_per_job", drainServerMicrosPerJob());
    m.put("ack_requests", ackRequests);
    m.put("received", tally.received());
    m.put("missing", tally.missing());
    m.put("duplicates", tally.duplicates());
    m.put("strays", tally.strays());
    m.put("acked", tally.acked());
    m.put("ack_not_found", tally.ackNotFound());
    m.put("heartbeats", heartbeats);
    m.put("unparsable_lines", foreignLines);
    return m;
  }

  static void putIfKnown(Map<String, Object> m, String key, double value) {
    if (!Double.isNaN(value)) {
      m.put(key, round(value, 2));
    }
  }

  static double round(double v, int digits) {
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }
}

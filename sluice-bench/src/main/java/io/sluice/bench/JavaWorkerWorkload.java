package io.sluice.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * java-worker: the drain of workload (a) by the bench's raw HTTP workers against the same drain
 * by the Java client's {@link io.sluice.client.Worker} ({@link JavaWorkerDrain}), on one server,
 * with the same jobs, streams and prefetch. The Java worker should keep at least 80% of the raw
 * rate: what it adds per job (mapping the payload, a handler thread, batching acks) must stay
 * small beside what the server costs.
 *
 * <p>Each run makes four passes in the order A B B A (odd runs start raw, even runs with the Java
 * worker) and pools each side's jobs and times, so that drift within a run (compaction of the
 * earlier passes' data, the page cache) does not favour the side that went first. Both drains run
 * in this JVM, on the two cores the server also uses, so the bench compiles the worker's code in
 * its own warm-up first.
 */
final class JavaWorkerWorkload {

  static final double TARGET_PCT = 80.0;

  private final BudgetEnv env;

  JavaWorkerWorkload(BudgetEnv env) {
    this.env = env;
  }

  Map<String, Object> run(int runNumber) {
    BenchOptions opt = env.opt();
    boolean workerFirst = runNumber % 2 == 0;
    env.warnIfCold("java-worker");
    if (opt.serverWarmupRuns() > 0) {
      JavaWorkerDrain.Result warm = pass(opt.forServerWarmup());
      env.say("[java-worker] worker warm-up (not measured): drain %,.0f jobs/s", warm.drainRate());
    }
    List<ThroughputResult> raw = new ArrayList<>();
    List<JavaWorkerDrain.Result> worker = new ArrayList<>();
    for (boolean javaWorker : BudgetOverheadWorkload.passOrder(workerFirst)) {
      if (javaWorker) {
        JavaWorkerDrain.Result r = pass(opt);
        env.say(r.describe());
        worker.add(r);
      } else {
        ThroughputResult r = new ThroughputWorkload(opt, env.kit(), env.endpoint())
            .withServerCpu(serverCpu()).run(BudgetEnv.nonce());
        env.sayLines(r.describe("[a raw]"));
        raw.add(r);
      }
    }
    double rawRate = BudgetOverheadWorkload.Totals.of(raw).drainRate();
    long workerJobs = worker.stream().mapToLong(JavaWorkerDrain.Result::jobs).sum();
    long workerNanos = worker.stream().mapToLong(JavaWorkerDrain.Result::drainNanos).sum();
    double workerRate = workerJobs / (workerNanos / 1e9);
    double pct = 100 * workerRate / rawRate;
    env.say("[java-worker] drain raw %,.0f jobs/s, Java worker %,.0f jobs/s = %.1f%% (target >= %.0f%%: %s)"
            + " [order: %s]",
        rawRate, workerRate, pct, TARGET_PCT, BudgetEnv.verdict(pct >= TARGET_PCT),
        workerFirst ? "worker raw raw worker" : "raw worker worker raw");

    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", raw.stream().allMatch(ThroughputResult::ok) && worker.stream().allMatch(JavaWorkerDrain.Result::ok));
    m.put("order", workerFirst ? "worker-first" : "raw-first");
    m.put("raw_drain_jobs_per_s", Math.round(rawRate));
    m.put("worker_drain_jobs_per_s", Math.round(workerRate));
    m.put("worker_pct_of_raw", ThroughputResult.round(pct, 1));
    m.put("raw", raw.stream().map(ThroughputResult::toMap).toList());
    m.put("worker", worker.stream().map(JavaWorkerDrain.Result::toMap).toList());
    return m;
  }

  private JavaWorkerDrain.Result pass(BenchOptions opt) {
    return new JavaWorkerDrain(opt, env.kit(), env.endpoint()).withServerCpu(serverCpu())
        .run(BudgetEnv.nonce());
  }

  private java.util.function.LongSupplier serverCpu() {
    return env.server() != null ? env.server()::cpuNanos : () -> -1;
  }

  static String summaryLine(Map<String, Object> m) {
    return String.format("drain raw %,.0f vs Java worker %,.0f jobs/s = %s%% of raw (target >= %.0f%%)",
        ((Number) m.get("raw_drain_jobs_per_s")).doubleValue(),
        ((Number) m.get("worker_drain_jobs_per_s")).doubleValue(), m.get("worker_pct_of_raw"), TARGET_PCT);
  }
}

package io.sluice.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * Benchmarks a Sluice server over loopback HTTP/1.1 keep-alive.
 *
 * <p>Workload (a) measures bulk-enqueue and drain throughput and verifies exactly-once delivery;
 * workload (b) measures enqueue-to-worker latency under a steady open-loop rate. The budget
 * workloads (budget-overhead, budget-durable, budget-parked, budget-many, budget-pacing,
 * budget-partitions) measure what budgets cost
 * and how precisely they meter. The query workload measures the read path (GET /jobs page latency
 * with a million jobs stored, and what a jq-filtered count scan costs a concurrent drain). The
 * metrics workload measures GET /metrics with thousands of budgets and queues, and what scraping
 * costs a drain. Each
 * run uses a freshly started server unless --url points at
 * one, and the median over runs is reported because single runs on a shared 2-core machine are
 * noisy.
 */
public final class BenchMain {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final BenchOptions opt;
  private final Endpoint fixedEndpoint;

  private BenchMain(BenchOptions opt) {
    this.opt = opt;
    this.fixedEndpoint = opt.url() == null ? null : Endpoint.parse(opt.url());
  }

  public static void main(String[] args) {
    BenchOptions opt;
    try {
      opt = BenchOptions.parse(args);
    } catch (BenchOptions.UsageException e) {
      if (e.getMessage() == null) {
        System.out.print(BenchOptions.USAGE);
        System.exit(0);
      }
      System.err.println("sluice-bench: " + e.getMessage());
      System.err.print(BenchOptions.USAGE);
      System.exit(2);
      return;
    }
    int status;
    try {
      status = new BenchMain(opt).runAll();
    } catch (BenchFailure e) {
      System.err.println("sluice-bench: " + e.getMessage());
      status = 1;
    }
    System.exit(status);
  }

  private int runAll() {
    System.out.printf("sluice-bench: %s, workload %s, %d run(s)%n",
        fixedEndpoint == null ? "fresh server per run from " + opt.project() : "server at " + fixedEndpoint.url(),
        opt.workload(), opt.runs());
    List<Map<String, Object>> throughputRuns = new ArrayList<>();
    List<Map<String, Object>> latencyRuns = new ArrayList<>();
    List<Map<String, Object>> soloRuns = new ArrayList<>();
    boolean allOk = true;
    try (ClientKit kit = new ClientKit(opt.clientThreads())) {
      warmUp(kit);
      for (int run = 1; run <= opt.runs(); run++) {
        Map<String, Object> result = runOnce(run, kit);
        System.out.println("RESULT " + json(result));
        allOk &= Boolean.TRUE.equals(result.get("ok"));
        collectOk(result.get("a"), throughputRuns);
        collectOk(result.get("b"), latencyRuns);
        collectOk(result.get(soloResultKey()), soloRuns);
      }
    }
    printSummary(throughputRuns, latencyRuns, soloRuns, allOk);
    return allOk ? 0 : 1;
  }

  /**
   * Exercises the client once before anything is measured. Without it, run 1 pays for the bench's
   * own class loading and JIT compilation on the same two cores the server needs. Failures are
   * only reported: the measured runs will show the same problem in full.
   */
  private void warmUp(ClientKit kit) {
    if (opt.warmupJobs() == 0) {
      return;
    }
    BenchOptions w = opt.forWarmup();
    String nonce = String.format("%08x", ThreadLocalRandom.current().nextInt());
    ServerProcess server = null;
    try {
      if (fixedEndpoint == null) {
        server = ServerProcess.start(opt.project(), opt.startupTimeoutSec(), false);
      }
      Endpoint endpoint = server != null ? server.endpoint() : fixedEndpoint;
      if (w.warmUpThroughput()) {
        ThroughputResult r = new ThroughputWorkload(w, kit, endpoint).run(nonce);
        System.out.printf("warm-up (not measured): [a] %,d jobs, enqueue %,.0f jobs/s, drain %,.0f jobs/s%n",
            w.jobs(), r.enqueueRate(), r.drainRate());
      }
      if (w.runLatency()) {
        LatencyResult r = new LatencyWorkload(w, kit, endpoint).run(nonce);
        System.out.printf("warm-up (not measured): [b] %,d jobs %s%n", w.latencyJobs(), r.ok() ? "OK" : "FAILED");
      }
      if (w.javaWorkerWorkload()) {
        JavaWorkerDrain.Result r = new JavaWorkerDrain(w, kit, endpoint).run(BudgetEnv.nonce());
        System.out.printf("warm-up (not measured): [java worker] %,d jobs, drain %,.0f jobs/s%n",
            w.jobs(), r.drainRate());
      }
    } catch (BenchFailure e) {
      System.out.println("warm-up FAILED (continuing with the measured runs): " + e.getMessage());
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  /**
   * Runs the measured workloads unmeasured on this server first, so that what follows measures a
   * server whose JIT has compiled its hot paths, as a long-running one has.
   */
  private void warmUpServer(String tag, ClientKit kit, Endpoint endpoint) {
    BenchOptions w = opt.forServerWarmup();
    for (int round = 1; round <= opt.serverWarmupRuns(); round++) {
      String nonce = String.format("%08x", ThreadLocalRandom.current().nextInt());
      if (w.warmUpThroughput()) {
        ThroughputResult r = new ThroughputWorkload(w, kit, endpoint).run(nonce);
        System.out.printf("%s: server warm-up %d (not measured): [a] enqueue %,.0f jobs/s, drain %,.0f jobs/s%n",
            tag, round, r.enqueueRate(), r.drainRate());
      }
      if (w.runLatency() && round == opt.serverWarmupRuns()) {
        LatencyResult r = new LatencyWorkload(w, kit, endpoint).run(nonce);
        System.out.printf("%s: server warm-up (not measured): [b] %s%n", tag, r.ok() ? "OK" : "FAILED");
      }
    }
  }

  private Map<String, Object> runOnce(int run, ClientKit kit) {
    String tag = "run " + run + "/" + opt.runs();
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("run", run);
    result.put("server", fixedEndpoint == null ? "self-started" : fixedEndpoint.url());
    boolean ok = true;
    ServerProcess server = null;
    try {
      if (fixedEndpoint == null) {
        long t0 = System.nanoTime();
        server = ServerProcess.start(opt.project(), opt.startupTimeoutSec(), opt.keepTemp());
        System.out.printf("%s: server healthy at %s after %.1f s (log: %s)%n",
            tag, server.endpoint().url(), (System.nanoTime() - t0) / 1e9, server.log());
      }
      Endpoint endpoint = server != null ? server.endpoint() : fixedEndpoint;
      LongSupplier serverCpuNanos = server != null ? server::cpuNanos : () -> -1;
      warmUpServer(tag, kit, endpoint);
      // A per-run nonce in every payload tells this run's jobs from leftovers on a shared server.
      String nonce = String.format("%08x", ThreadLocalRandom.current().nextInt());
      if (opt.runThroughput()) {
        Map<String, Object> a = runWorkload(tag, "a", server, () -> {
          ThroughputResult r = new ThroughputWorkload(opt, kit, endpoint).withServerCpu(serverCpuNanos)
              .run(nonce);
          printIndented(tag, r.describe());
          return r.toMap();
        });
        ok &= Boolean.TRUE.equals(a.get("ok"));
        result.put("a", a);
      }
      if (opt.runLatency()) {
        Map<String, Object> b = runWorkload(tag, "b", server, () -> {
          LatencyResult r = new LatencyWorkload(opt, kit, endpoint).withServerCpu(serverCpuNanos)
              .run(nonce);
          printIndented(tag, r.describe());
          return r.toMap();
        });
        ok &= Boolean.TRUE.equals(b.get("ok"));
        result.put("b", b);
      }
      if (opt.soloWorkload()) {
        BudgetEnv env = new BudgetEnv(opt, kit, endpoint, server, tag);
        Map<String, Object> r = runWorkload(tag, opt.workload(), server, () -> switch (opt.workload()) {
          case "budget-overhead" -> new BudgetOverheadWorkload(env).run(run);
          case "budget-durable" -> new BudgetDurableWorkload(env).run(run);
          case "budget-parked" -> new BudgetParkedWorkload(env).run();
          case "budget-many" -> new BudgetManyWorkload(env).run();
          case "budget-pacing" -> new BudgetPacingWorkload(env).run();
          case "budget-partitions" -> new BudgetPartitionsWorkload(env).run(run);
          case BenchOptions.QUERY_WORKLOAD -> new QueryWorkload(env).run();
          case BenchOptions.METRICS_WORKLOAD -> new MetricsWorkload(env).run(run);
          case BenchOptions.JAVA_WORKER_WORKLOAD -> new JavaWorkerWorkload(env).run(run);
          default -> throw new IllegalStateException(opt.workload());
        });
        ok &= Boolean.TRUE.equals(r.get("ok"));
        result.put(soloResultKey(), r);
      }
    } catch (BenchFailure e) {
      System.out.println(tag + ": FAILED: " + e.getMessage());
      result.put("error", e.getMessage());
      ok = false;
    } finally {
      if (server != null) {
        server.close();
      }
    }
    result.put("ok", ok);
    return result;
  }

  private interface Workload {
    Map<String, Object> run();
  }

  /** Runs one workload, turning a failure into a reported result so the other workload still runs. */
  private static Map<String, Object> runWorkload(String tag, String name, ServerProcess server, Workload w) {
    try {
      return w.run();
    } catch (BenchFailure e) {
      System.out.println(tag + ": [" + name + "] FAILED: " + e.getMessage());
      if (server != null) {
        System.out.println(tag + ": last server output:\n" + server.logTail());
      }
      Map<String, Object> failed = new LinkedHashMap<>();
      failed.put("ok", false);
      failed.put("error", e.getMessage());
      return failed;
    }
  }

  /** RESULT/SUMMARY key of the selected budget or query workload, e.g. "budget_pacing", "query". */
  private String soloResultKey() {
    return opt.workload().replace('-', '_');
  }

  private void printSummary(List<Map<String, Object>> a, List<Map<String, Object>> b,
      List<Map<String, Object>> solo, boolean allOk) {
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("runs", opt.runs());
    summary.put("all_ok", allOk);
    System.out.printf("== median over verified runs (%s) ==%n", allOk ? "all runs OK" : "SOME RUNS FAILED");
    if (opt.runThroughput()) {
      Map<String, Object> m = Medians.of(a);
      summary.put("a_ok_runs", a.size());
      summary.put("a", m);
      if (!a.isEmpty()) {
        String serverCpu = m.containsKey("enqueue_server_cpu_us_per_job")
            && m.containsKey("drain_server_cpu_us_per_job")
            ? String.format("; server CPU %.1f / %.1f us/job", num(m.get("enqueue_server_cpu_us_per_job")),
                num(m.get("drain_server_cpu_us_per_job")))
            : "";
        System.out.printf("[a] enqueue %,.0f jobs/s, drain %,.0f jobs/s%s (%d of %d runs)%n",
            num(m.get("enqueue_jobs_per_s")), num(m.get("drain_jobs_per_s")), serverCpu, a.size(), opt.runs());
      } else {
        System.out.println("[a] no verified run");
      }
    }
    if (opt.runLatency()) {
      Map<String, Object> m = Medians.of(b);
      summary.put("b_ok_runs", b.size());
      summary.put("b", m);
      if (!b.isEmpty()) {
        String serverCpu = m.containsKey("server_cpu_us_per_job")
            ? String.format("; server CPU %.1f us/job", num(m.get("server_cpu_us_per_job"))) : "";
        System.out.printf("[b] enqueue->receive ms: p50 %s  p90 %s  p99 %s  p99.9 %s  max %s; enqueue->201 ms: p50 %s  p99 %s%s (%d of %d runs)%n",
            m.get("e2e_p50_ms"), m.get("e2e_p90_ms"), m.get("e2e_p99_ms"), m.get("e2e_p999_ms"), m.get("e2e_max_ms"),
            m.get("enqueue_p50_ms"), m.get("enqueue_p99_ms"), serverCpu, b.size(), opt.runs());
      } else {
        System.out.println("[b] no verified run");
      }
    }
    if (opt.soloWorkload()) {
      String key = soloResultKey();
      Map<String, Object> m = Medians.of(solo);
      summary.put(key + "_ok_runs", solo.size());
      summary.put(key, m);
      if (solo.isEmpty()) {
        System.out.println("[" + opt.workload() + "] no verified run");
      } else {
        System.out.println("[" + opt.workload() + "] " + soloSummaryLine(m) + " (" + solo.size() + " of "
            + opt.runs() + " runs)");
      }
    }
    System.out.println("SUMMARY " + json(summary));
  }

  private String soloSummaryLine(Map<String, Object> m) {
    return switch (opt.workload()) {
      case "budget-overhead" -> String.format(
          "drain unbound %,.0f vs bound %,.0f jobs/s = %+.1f%% time per job; enqueue %,.0f vs %,.0f jobs/s = %+.1f%%",
          num(m.get("unbound_drain_jobs_per_s")), num(m.get("bound_drain_jobs_per_s")),
          num(m.get("drain_overhead_pct")), num(m.get("unbound_enqueue_jobs_per_s")),
          num(m.get("bound_enqueue_jobs_per_s")), num(m.get("enqueue_overhead_pct")));
      case "budget-partitions" -> String.format(
          "%,.0f partitions: heap after GC plain %s MiB, partitioned %s MiB (partitions %s MiB);"
              + " drain plain %,.0f vs partitioned %,.0f jobs/s = %+.1f%% time per job;"
              + " enqueue %,.0f vs %,.0f jobs/s = %+.1f%%",
          num(m.get("partitions")), m.get("plain_heap_mib"), m.get("partitioned_heap_mib"),
          m.get("partitions_heap_mib"), num(m.get("plain_drain_jobs_per_s")),
          num(m.get("partitioned_drain_jobs_per_s")), num(m.get("drain_overhead_pct")),
          num(m.get("plain_enqueue_jobs_per_s")), num(m.get("partitioned_enqueue_jobs_per_s")),
          num(m.get("enqueue_overhead_pct")));
      case "budget-durable" -> String.format(
          "drain plain %,.0f vs durable %,.0f jobs/s = %+.1f%% time per job",
          num(m.get("plain_drain_jobs_per_s")), num(m.get("durable_drain_jobs_per_s")),
          num(m.get("drain_overhead_pct")));
      case "budget-parked" -> String.format(
          "drain %,.0f jobs/s with %,d parked vs %,.0f before = %.1f%%; enqueue %,.0f vs %,.0f = %.1f%%; server RSS parked %s MiB",
          num(m.get("parked_drain_jobs_per_s")), opt.parked(), num(m.get("before_drain_jobs_per_s")),
          num(m.get("drain_ratio_pct")), num(m.get("parked_enqueue_jobs_per_s")),
          num(m.get("before_enqueue_jobs_per_s")), num(m.get("enqueue_ratio_pct")), m.getOrDefault("rss_parked_mib", "n/a"));
      case "budget-many" -> String.format(
          "%,.0f dispatches/s over %s s (%s%% of an ideal server's count; %s, ideal %s s);"
              + " lateness ms p50 %s p99 %s max %s; server RSS after %s MiB",
          num(m.get("dispatches_per_s")), m.get("measured_s"), m.get("ideal_pct"),
          m.containsKey("drain_s") ? "drained in " + m.get("drain_s") + " s" : "not drained within the window",
          m.get("ideal_drain_s"), m.get("late_p50_ms"), m.get("late_p99_ms"), m.get("late_max_ms"),
          m.getOrDefault("rss_after_mib", "n/a"));
      case "budget-pacing" -> String.format(
          "rate |receipt - grid| ms p50 %s p99 %s max %s; while_in_flight handover ms p50 %s p99 %s max %s;"
              + " baseline handover ms p50 %s p99 %s",
          m.get("rate_grid_p50_ms"), m.get("rate_grid_p99_ms"), m.get("rate_grid_max_ms"),
          m.get("mutex_handover_p50_ms"), m.get("mutex_handover_p99_ms"), m.get("mutex_handover_max_ms"),
          m.get("base_handover_p50_ms"), m.get("base_handover_p99_ms"));
      case BenchOptions.QUERY_WORKLOAD -> QueryWorkload.summaryLine(m);
      case BenchOptions.METRICS_WORKLOAD -> MetricsWorkload.summaryLine(m);
      case BenchOptions.JAVA_WORKER_WORKLOAD -> JavaWorkerWorkload.summaryLine(m);
      default -> "";
    };
  }

  @SuppressWarnings("unchecked")
  private static void collectOk(Object workloadResult, List<Map<String, Object>> into) {
    if (workloadResult instanceof Map<?, ?> m && Boolean.TRUE.equals(m.get("ok"))) {
      into.add((Map<String, Object>) m);
    }
  }

  private static double num(Object medianValue) {
    return ((Number) medianValue).doubleValue();
  }

  private static void printIndented(String tag, String lines) {
    for (String line : lines.split("\n")) {
      System.out.println(tag + ": " + line);
    }
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}

package io.sluice.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command-line options. Hand-rolled on purpose: the bench should not drag a CLI library into
 * its jar, and "--name value" / "--name=value" is all it needs. A later occurrence of an option
 * overrides an earlier one, which lets bin/sluice-bench supply defaults the user can override.
 */
record BenchOptions(
    String url,
    Path project,
    String workload,
    int runs,
    int jobs,
    int batch,
    int lanes,
    int workers,
    int prefetch,
    int payloadBytes,
    double rate,
    int latencyJobs,
    int pool,
    String queue,
    int clientThreads,
    long phaseTimeoutSec,
    long startupTimeoutSec,
    int warmupJobs,
    int serverWarmupRuns,
    boolean keepTemp,
    int parked,
    int budgets,
    int jobsPerBudget,
    int windowSec,
    int pacingJobs,
    int stored,
    int rare,
    int queryRequests,
    int queryPages,
    int queryTimeSec,
    String adminUrl,
    int metricsQueues,
    int scrapeEveryMs,
    int partitions,
    int workerConcurrency) {

  /** Workloads that exercise budgets; each runs on its own (see BenchMain). */
  static final List<String> BUDGET_WORKLOADS =
      List.of("budget-overhead", "budget-durable", "budget-parked", "budget-many",
          "budget-pacing", "budget-partitions");

  /** The read-path workload (GET /jobs, GET /jobs/count beside a drain); runs on its own too. */
  static final String QUERY_WORKLOAD = "query";

  /** GET /metrics with many queues and budgets, and what scraping costs a drain; on its own. */
  static final String METRICS_WORKLOAD = "metrics";

  /** The drain of (a) by the raw HTTP workers against the Java client's Worker; on its own. */
  static final String JAVA_WORKER_WORKLOAD = "java-worker";
  /** The client's latency warm-up sends at most this many jobs (a second at the default rate). */
  static final int MAX_LATENCY_WARMUP_JOBS = 500;

  static final String USAGE = """
      Usage: sluice-bench [options]

      Target (default: start a fresh server per run from the project):
        --url http://127.0.0.1:PORT   use an already running server (loopback only)
        --admin-url http://127.0.0.1:PORT  its admin listener (the metrics workload needs it)
        --project DIR                 project root holding bin/sluice (default: current directory)
        --startup-timeout SEC         wait for /health after launch (default 180)
        --keep-temp                   keep the server's temp dir and log after the run

      What to run:
        --workload NAME               a = bulk enqueue + drain throughput, b = latency, all = a and b
                                      (default all); budget workloads, one at a time:
                                        budget-overhead  (a) unbound vs bound to a roomy budget
                                        budget-durable   (a) bound to a roomy rate budget, plain
                                                         vs durable (X4)
                                        budget-parked    (a) before vs after parking --parked jobs
                                        budget-many      --budgets rate-limited budgets draining
                                        budget-pacing    rate-limit schedule accuracy and
                                                         concurrency-limit handover latency
                                        budget-partitions (a) bound to a roomy plain budget vs
                                                         to --partitions partitions of a
                                                         partitioned one (X3); heap after GC
                                                         with every job waiting, drain rate
                                      read-path workload, on its own:
                                        query            GET /jobs page latency with --stored
                                                         jobs stored, and (a) alone vs beside a
                                                         looping jq-filtered GET /jobs/count
                                        metrics          GET /metrics latency with --budgets
                                                         budgets and --metrics-queues queues,
                                                         and (a) alone vs scraped during the drain
                                      client workload, on its own:
                                        java-worker      the drain of (a) by raw HTTP workers vs
                                                         by the Java client's Worker (--workers
                                                         workers); target: the worker at 80%
                                                         or more
        --runs N                      runs, each on a fresh self-started server (default 3)
        --jobs N                      (a) jobs to enqueue and drain (default 100000)
        --batch N                     (a) jobs per POST /jobs/bulk (default 1000)
        --lanes N                     (a) bulk requests in flight, one connection each (default 4)
        --workers N                   take streams, one connection each (default 4)
        --prefetch N                  prefetch per take stream (default 16)
        --payload-bytes N             JSON payload size per job (default 100)
        --rate R                      (b) enqueues per second, open loop (default 500)
        --latency-jobs N              (b) jobs to send (default 5000)
        --pool N                      (b) max connections for the enqueue client (default 64)
        --queue NAME                  queue for (a); (b) uses NAME-latency (default bench)
        --client-threads N            bench event loops (default 2)
        --phase-timeout SEC           fail a phase that takes longer (default 120)
        --warmup-jobs N               unmeasured warm-up of the bench client before run 1, on a
                                      throwaway server (or the --url one); 0 disables (default
                                      200000: with 20,000, C2 was still compiling the client's
                                      per-request code in run 1); (b) sends a 40th of it, at
                                      most 500
        --server-warmup-runs N        unmeasured full-size rounds of (a), plus one of (b), on each
                                      measured server before its measured run, so its JIT has
                                      compiled the hot paths; 0 measures a cold server (default 0).
                                      Budget and query workloads warm up with (a) only;
                                      budget-overhead, budget-durable and budget-parked compare
                                      rounds of (a), so use 1 or more there (query runs one
                                      unmeasured round of (a) before its comparison itself when
                                      this is 0)

      Budget workloads:
        --parked N                    (budget-parked) jobs parked behind an exhausted budget on
                                      queue 'parked' (default 1000000)
        --budgets K                   (budget-many) time_based budgets b0..bK-1, allocation 1 per
                                      1000 + (i*37 % 1000) ms (default 8192)
        --jobs-per-budget J           (budget-many) jobs bound to each budget (default 4)
        --window-sec W                (budget-many) measurement window; ends early once every
                                      job is dispatched and acked (default 20)
        --pacing-jobs N               (budget-pacing) backlog per phase (default 1000)
        --partitions P                (budget-partitions) partition values the jobs spread over,
                                      round-robin; 0 = one partition per job (default 0)
        Queues: rounds of (a) use --queue; budget-many uses NAME-many, budget-pacing
        NAME-pace-rate, NAME-pace-mutex and NAME-pace-base; budget-parked parks on 'parked'.
        With --url, each budget workload deletes the budgets (and leftover jobs) it created.

      Query workload:
        --stored N                    jobs stored on queue 'stored' (types t0..t3 round-robin,
                                      payload {"seq":i,"kind":"k<i%10>","pad":..}), never taken
                                      (default 1000000)
        --rare N                      jobs on queue 'rare', spread evenly among them; 0 = none
                                      (default 100)
        --query-requests N            timed requests per query kind (default 50)
        --query-pages N               pages per walk along 'next' links (default 10)
        --query-time-sec S            stop a query kind after S s even if fewer requests were
                                      timed, for kinds the server answers by a full scan (default 30)
        The jq scan beside the second round of (a) is GET /jobs/count?queue=stored&filter=
        .kind == "k3", sent back to back from its own connection for the whole drain.
        With --url, the workload deletes queues 'stored' and 'rare' afterwards.

      Metrics workload:
        --budgets K                   budgets m0..mK-1 (time_based, one token an hour), each made
                                      by binding one job to it (default 8192, the server's
                                      default --max-budgets)
        --metrics-queues Q            queues NAME-m0..NAME-mQ-1 holding those jobs round-robin,
                                      one unbound job in each queue beyond K (default 1000)
        --scrape-every-ms MS          GET /metrics period during the scraped drain (default 1000)
        After 100 unmeasured scrapes it times 20 with nothing running, then runs (a) alone (A)
        and scraped during its drain (S) in the order A S S A on odd runs, S A A S on even ones.
        Targets: every scrape during the drains <= 50 ms; drain throughput scraped within 5% of
        alone. Use --jobs 500000 or more so that a drain lasts several scrape periods. With
        --url, --admin-url is required and the workload deletes its jobs and budgets afterwards.

      Java worker workload:
        --worker-concurrency N        handler threads per Java worker; 0 = the prefetch
                                      (default 0). Each run drains (a)'s jobs raw (R) and with
                                      --workers Java workers (J), in the order R J J R on odd
                                      runs, J R R J on even ones; with --server-warmup-runs, one
                                      unmeasured J first. Target: J at 80% or more of R.

      Output: human-readable lines, one 'RESULT {json}' line per run and a final 'SUMMARY {json}'
      line with medians over the runs. Exit status 0 only if every run verified OK.
      """;

  static BenchOptions parse(String[] args) {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("project", ".");
    v.put("workload", "all");
    v.put("runs", "3");
    v.put("jobs", "100000");
    v.put("batch", "1000");
    v.put("lanes", "4");
    v.put("workers", "4");
    v.put("prefetch", "16");
    v.put("payload-bytes", "100");
    v.put("rate", "500");
    v.put("latency-jobs", "5000");
    v.put("pool", "64");
    v.put("queue", "bench");
    v.put("client-threads", "2");
    v.put("phase-timeout", "120");
    v.put("startup-timeout", "180");
    v.put("warmup-jobs", "200000");
    v.put("server-warmup-runs", "0");
    v.put("parked", "1000000");
    v.put("budgets", "8192");
    v.put("jobs-per-budget", "4");
    v.put("window-sec", "20");
    v.put("pacing-jobs", "1000");
    v.put("stored", "1000000");
    v.put("rare", "100");
    v.put("query-requests", "50");
    v.put("query-pages", "10");
    v.put("query-time-sec", "30");
    v.put("metrics-queues", "1000");
    v.put("scrape-every-ms", "1000");
    v.put("partitions", "0");
    v.put("worker-concurrency", "0");
    boolean keepTemp = false;

    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        throw new UsageException(null);
      }
      if (a.equals("--keep-temp")) {
        keepTemp = true;
        continue;
      }
      if (!a.startsWith("--")) {
        throw new UsageException("unexpected argument '" + a + "'");
      }
      String name;
      String value;
      int eq = a.indexOf('=');
      if (eq > 0) {
        name = a.substring(2, eq);
        value = a.substring(eq + 1);
      } else {
        name = a.substring(2);
        if (i + 1 >= args.length) {
          throw new UsageException("--" + name + " needs a value");
        }
        value = args[++i];
      }
      if (!name.equals("url") && !name.equals("admin-url") && !v.containsKey(name)) {
        throw new UsageException("unknown option --" + name);
      }
      v.put(name, value);
    }

    String workload = v.get("workload");
    if (!workload.equals("a") && !workload.equals("b") && !workload.equals("all")
        && !BUDGET_WORKLOADS.contains(workload) && !workload.equals(QUERY_WORKLOAD)
        && !workload.equals(METRICS_WORKLOAD) && !workload.equals(JAVA_WORKER_WORKLOAD)) {
      throw new UsageException("--workload must be a, b, all, " + QUERY_WORKLOAD + ", "
          + METRICS_WORKLOAD + ", " + JAVA_WORKER_WORKLOAD + " or one of "
          + String.join(", ", BUDGET_WORKLOADS));
    }
    BenchOptions o = new BenchOptions(
        v.get("url"),
        Path.of(v.get("project")).toAbsolutePath().normalize(),
        workload,
        positive(v, "runs"),
        positive(v, "jobs"),
        positive(v, "batch"),
        positive(v, "lanes"),
        positive(v, "workers"),
        positive(v, "prefetch"),
        positive(v, "payload-bytes"),
        positiveDouble(v, "rate"),
        positive(v, "latency-jobs"),
        positive(v, "pool"),
        v.get("queue"),
        positive(v, "client-threads"),
        positive(v, "phase-timeout"),
        positive(v, "startup-timeout"),
        nonNegative(v, "warmup-jobs"),
        nonNegative(v, "server-warmup-runs"),
        keepTemp,
        positive(v, "parked"),
        positive(v, "budgets"),
        positive(v, "jobs-per-budget"),
        positive(v, "window-sec"),
        positive(v, "pacing-jobs"),
        positive(v, "stored"),
        nonNegative(v, "rare"),
        positive(v, "query-requests"),
        positive(v, "query-pages"),
        positive(v, "query-time-sec"),
        v.get("admin-url"),
        positive(v, "metrics-queues"),
        positive(v, "scrape-every-ms"),
        nonNegative(v, "partitions"),
        nonNegative(v, "worker-concurrency"));
    if (o.queue().isEmpty()) {
      throw new UsageException("--queue must not be empty");
    }
    if (o.queryWorkload() && (o.queue().equals(QueryBodies.STORED_QUEUE) || o.queue().equals(QueryBodies.RARE_QUEUE))) {
      throw new UsageException("--queue must differ from the query workload's queues 'stored' and 'rare'");
    }
    if ((long) o.stored() + o.rare() > Integer.MAX_VALUE) {
      throw new UsageException("--stored plus --rare is too large");
    }
    return o;
  }

  boolean runThroughput() {
    return workload.equals("a") || workload.equals("all");
  }

  boolean runLatency() {
    return workload.equals("b") || workload.equals("all");
  }

  boolean budgetWorkload() {
    return BUDGET_WORKLOADS.contains(workload);
  }

  boolean queryWorkload() {
    return workload.equals(QUERY_WORKLOAD);
  }

  boolean metricsWorkload() {
    return workload.equals(METRICS_WORKLOAD);
  }

  /** (java-worker) handler threads per Java worker: --worker-concurrency, or the prefetch. */
  int javaWorkerConcurrency() {
    return workerConcurrency > 0 ? workerConcurrency : prefetch;
  }

  boolean javaWorkerWorkload() {
    return workload.equals(JAVA_WORKER_WORKLOAD);
  }

  /** Workloads that run alone, on a {@link BudgetEnv}, with their own RESULT/SUMMARY key. */
  boolean soloWorkload() {
    return budgetWorkload() || queryWorkload() || metricsWorkload() || javaWorkerWorkload();
  }

  /**
   * Whether warm-ups (of the client, and of each server with --server-warmup-runs) include rounds
   * of (a). The budget and query workloads are built from the same requests as (a) (the query
   * workload runs rounds of it), so (a) warms them too.
   */
  boolean warmUpThroughput() {
    return runThroughput() || soloWorkload();
  }

  /** Separate queue so leftovers of a failed throughput phase cannot pollute latency samples. */
  String latencyQueue() {
    return queue + "-latency";
  }

  /** The measured settings, but with one run and no warm-ups: a server warm-up round. */
  BenchOptions forServerWarmup() {
    return new BenchOptions(url, project, workload, 1, jobs, batch, lanes, workers, prefetch, payloadBytes,
        rate, latencyJobs, pool, queue, clientThreads, phaseTimeoutSec, startupTimeoutSec, 0, 0, keepTemp,
        parked, budgets, jobsPerBudget, windowSec, pacingJobs, stored, rare, queryRequests, queryPages, queryTimeSec,
        adminUrl, metricsQueues, scrapeEveryMs, partitions, workerConcurrency);
  }

  /**
   * The settings of the client's warm-up: enough requests for the JIT to compile the client's hot
   * paths, so run 1 does not pay for compilation on the cores it shares with the server. The
   * latency round stays short: it sends at the measured rate, so its length is wall time.
   */
  BenchOptions forWarmup() {
    return new BenchOptions(url, project, workload, 1, warmupJobs, batch, lanes, workers, prefetch, payloadBytes,
        rate, latencyWarmupJobs(), pool, queue, clientThreads, phaseTimeoutSec, startupTimeoutSec,
        0, 0, keepTemp, parked, budgets, jobsPerBudget, windowSec, pacingJobs, stored, rare, queryRequests,
        queryPages, queryTimeSec, adminUrl, metricsQueues, scrapeEveryMs, partitions, workerConcurrency);
  }

  private int latencyWarmupJobs() {
    return Math.max(1, Math.min(MAX_LATENCY_WARMUP_JOBS, warmupJobs / 40));
  }

  private static int nonNegative(Map<String, String> v, String name) {
    try {
      int n = Integer.parseInt(v.get(name).replace("_", ""));
      if (n < 0) {
        throw new UsageException("--" + name + " must not be negative");
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " must be an integer, got '" + v.get(name) + "'");
    }
  }

  private static int positive(Map<String, String> v, String name) {
    try {
      int n = Integer.parseInt(v.get(name).replace("_", ""));
      if (n <= 0) {
        throw new UsageException("--" + name + " must be positive");
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " must be an integer, got '" + v.get(name) + "'");
    }
  }

  private static double positiveDouble(Map<String, String> v, String name) {
    try {
      double d = Double.parseDouble(v.get(name));
      if (!(d > 0) || Double.isInfinite(d)) {
        throw new UsageException("--" + name + " must be positive");
      }
      return d;
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " must be a number, got '" + v.get(name) + "'");
    }
  }

  /** Bad command line; a null message means "just print usage". */
  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }
}

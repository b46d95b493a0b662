package io.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * budget-parked: does a large number of parked jobs slow down everything else? Runs workload (a)
 * (unbound jobs on the usual queue), then parks {@code --parked} jobs behind an exhausted budget
 * on a separate queue, times {@code GET /jobs/{id}/wait} for them ({@link WaitProbe}), then runs
 * (a) again on the same server and compares. Target: throughput
 * within 10% of the run with nothing parked, i.e. no per-dispatch cost that grows with the
 * parked count. Server memory is reported at each step.
 *
 * <p>The budget grants one token per 10^9 ms (about 11.6 days). Its bucket starts full, so the
 * first parked job could be dispatched once, but only to a worker taking from queue 'parked', and
 * no worker does: every parked job stays parked for the whole run.
 *
 * <p>The baseline necessarily runs first, on a colder server; --server-warmup-runs 1 (or more)
 * takes most of that bias out. Each measured run starts once the server is quiet: parking a
 * million jobs leaves the storage compacting for a while, which on a small machine would take
 * CPU from the run measured next and blame the parked jobs for it.
 */
final class BudgetParkedWorkload {

  static final String BUDGET = "blocked";
  static final String QUEUE = "parked";
  static final String POLICY = "{\"allocation\":1,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":1000000000}}";
  static final double TARGET_PCT = 10.0;
  private static final long PROGRESS_EVERY_MILLIS = 5_000;
  private static final long QUIET_WAIT_MILLIS = 60_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BudgetEnv env;

  BudgetParkedWorkload(BudgetEnv env) {
    this.env = env;
  }

  Map<String, Object> run() {
    BenchOptions opt = env.opt();
    int parked = opt.parked();
    try (ServerCalls calls = env.calls()) {
      env.warnIfCold("parked");
      ProcStatus.Memory memStart = env.memory();
      env.say("[parked] server memory before: " + memStart.describe());

      env.awaitQuietServer("[parked] before the run with nothing parked:", QUIET_WAIT_MILLIS);
      ThroughputResult before = new ThroughputWorkload(opt, env.kit(), env.endpoint()).run(BudgetEnv.nonce());
      env.sayLines(before.describe("[a nothing parked]"));
      ProcStatus.Memory memBefore = env.memory();

      calls.putBudget(BUDGET, POLICY);
      long parkNanos = park(parked);
      double parkRate = parked / (parkNanos / 1e9);
      ProcStatus.Memory memParked = env.memory();
      env.say("[parked] parked %,d jobs on queue '%s' behind budget '%s' in %.1f s (%,.0f jobs/s);"
          + " server memory %s", parked, QUEUE, BUDGET, parkNanos / 1e9, parkRate, memParked.describe());
      long countBefore = readyCount(calls);
      Map<String, Object> waits = new WaitProbe(env).run(QUEUE);

      env.awaitQuietServer("[parked] before the run with " + String.format("%,d", parked) + " parked:",
          QUIET_WAIT_MILLIS);
      ThroughputResult after = new ThroughputWorkload(opt, env.kit(), env.endpoint()).run(BudgetEnv.nonce());
      env.sayLines(after.describe("[a " + String.format("%,d", parked) + " parked]"));
      ProcStatus.Memory memAfter = env.memory();
      long countAfter = readyCount(calls);

      double drainRatio = after.drainRate() / before.drainRate();
      double enqueueRatio = after.enqueueRate() / before.enqueueRate();
      boolean drainMet = drainRatio >= 1 - TARGET_PCT / 100;
      boolean enqueueMet = enqueueRatio >= 1 - TARGET_PCT / 100;
      env.say("[parked] drain   %,.0f jobs/s with %,d parked vs %,.0f with none = %.1f%% (target >= %.0f%%: %s)",
          after.drainRate(), parked, before.drainRate(), drainRatio * 100, 100 - TARGET_PCT,
          BudgetEnv.verdict(drainMet));
      env.say("[parked] enqueue %,.0f jobs/s with %,d parked vs %,.0f with none = %.1f%% (target >= %.0f%%: %s)",
          after.enqueueRate(), parked, before.enqueueRate(), enqueueRatio * 100, 100 - TARGET_PCT,
          BudgetEnv.verdict(enqueueMet));
      env.say("[parked] server memory: start %s, after (a) %s, after parking %s, after second (a) %s",
          memStart.describe(), memBefore.describe(), memParked.describe(), memAfter.describe());

      Map<String, Object> m = new LinkedHashMap<>();
      // A parked count the server reports lower than what was parked means jobs were dispatched
      // (or lost) that should have stayed parked: the comparison would not be measuring parking.
      boolean countsOk = (countBefore < 0 || countBefore >= parked) && (countAfter < 0 || countAfter >= parked);
      m.put("ok", before.ok() && after.ok() && countsOk);
      m.put("parked", parked);
      m.put("park_s", ThroughputResult.round(parkNanos / 1e9, 2));
      m.put("park_jobs_per_s", Math.round(parkRate));
      m.put("parked_count_reported", countAfter >= 0 ? countAfter : null);
      m.put("before_drain_jobs_per_s", Math.round(before.drainRate()));
      m.put("parked_drain_jobs_per_s", Math.round(after.drainRate()));
      m.put("drain_ratio_pct", ThroughputResult.round(drainRatio * 100, 2));
      m.put("before_enqueue_jobs_per_s", Math.round(before.enqueueRate()));
      m.put("parked_enqueue_jobs_per_s", Math.round(after.enqueueRate()));
      m.put("enqueue_ratio_pct", ThroughputResult.round(enqueueRatio * 100, 2));
      m.put("rss_start_mib", memStart.rssMiB());
      m.put("rss_before_parking_mib", memBefore.rssMiB());
      m.put("rss_parked_mib", memParked.rssMiB());
      m.put("rss_after_mib", memAfter.rssMiB());
      m.put("rss_peak_mib", memAfter.peakRssMiB());
      m.putAll(waits);
      m.put("before", before.toMap());
      m.put("with_parked", after.toMap());
      return m;
    } finally {
      try (ServerCalls calls = env.calls()) {
        env.cleanUp(calls, BudgetEnv.deleteQueue(QUEUE), BudgetEnv.deleteBudget(BUDGET));
      }
    }
  }

  /** Enqueues the parked jobs over --lanes connections, printing progress. @return nanoseconds */
  private long park(int parked) {
    BenchOptions opt = env.opt();
    JobBodies bodies = new JobBodies(QUEUE, BudgetEnv.nonce(), opt.payloadBytes(), JobBodies.allTo(BUDGET));
    BulkEnqueuer enqueuer = new BulkEnqueuer(bodies.lazyBulk(parked, opt.batch()), parked, opt.batch());
    HttpClientAgent connector = env.kit().connector();
    // Bounded like every phase, but allowing for a slow server: at least 1,000 jobs/s.
    long timeoutSec = opt.phaseTimeoutSec() + parked / 1_000;
    long start = System.nanoTime();
    try {
      enqueuer.connect(env.contexts(opt.lanes()), connector, env.endpoint(), BudgetEnv.CONNECT_TIMEOUT_SEC);
      env.say("[parked] parking %,d jobs in bulk requests of %,d (progress every %d s, give up after %d s)",
          parked, opt.batch(), PROGRESS_EVERY_MILLIS / 1000, timeoutSec);
      return enqueuer.run(timeoutSec, PROGRESS_EVERY_MILLIS, done -> env.say(
          "[parked]   %,d of %,d parked (%.0f%%, %,.0f jobs/s so far)", done, parked, 100.0 * done / parked,
          done / ((System.nanoTime() - start) / 1e9)));
    } finally {
      enqueuer.close();
      Await.quietly(connector.close(), 5_000);
    }
  }

  /**
   * Ready jobs on the parked queue as the server reports them, or -1 when the server cannot say
   * (GET /jobs/count not available): a cross-check, not needed for the measurement.
   */
  private long readyCount(ServerCalls calls) {
    ServerCalls.Call c = new ServerCalls.Call(HttpMethod.GET, "/jobs/count?queue=" + QUEUE + "&status=ready", null);
    ServerCalls.Answer a;
    try {
      a = calls.call(c);
    } catch (BenchFailure e) {
      env.say("[parked] (cross-check skipped: %s)", e.getMessage());
      return -1;
    }
    if (a.status() != 200) {
      env.say("[parked] (cross-check skipped: %s answered %d: %s)", c, a.status(), a.body());
      return -1;
    }
    try {
      JsonNode count = JSON.readTree(a.body()).path("count");
      if (!count.canConvertToLong()) {
        env.say("[parked] (cross-check skipped: %s answered %s)", c, a.body());
        return -1;
      }
      long n = count.asLong();
      env.say("[parked] server reports %,d ready jobs on queue '%s'%s", n, QUEUE,
          n >= env.opt().parked() ? "" : " -- FEWER than parked: some were dispatched or lost");
      return n;
    } catch (IOException e) {
      env.say("[parked] (cross-check skipped: unreadable answer %s)", a.body());
      return -1;
    }
  }
}

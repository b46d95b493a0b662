package io.sluice.bench;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * budget-pacing: how precisely the server meters a backlog through a budget. Target: p99 at most
 * 2 ms. Three phases of {@code --pacing-jobs} jobs each, every one with a single worker that acks
 * each job the moment it arrives:
 *
 * <ol>
 *   <li><b>rate</b>: a {@code time_based} budget of 100 per 1000 ms (default burst, so the bucket
 *       starts with 100 tokens) meters a backlog: the first 100 jobs go at once, then one every
 *       10 ms. Each receipt after the burst is compared with the grid {@code t0 + i * 10 ms}, t0
 *       fitted as the median of {@code receipt_i - i * 10 ms} (see {@link PacingMath}); the
 *       spacing error of each dispatch on its own and the overall slip are reported too. The same
 *       grid is fitted to the server's own dispatch instants ({@code dequeued_at}, whole
 *       milliseconds), which leave out the delivery to the worker. (With
 *       burst 1 the bucket is full between tokens, and BUDGETS.md §3 drops accrual while full, so
 *       every wake-up delay would legitimately push the rest of the schedule back.)
 *   <li><b>concurrency</b>: a {@code while_in_flight} budget of 1 lets the next job go only when
 *       the previous one is acked; measured from ack sent to next job received.
 *   <li><b>baseline</b>: the same handover without budgets, unbound jobs on a stream with
 *       prefetch 1: what the ack round trip and a plain dispatch cost, for comparison with (2).
 * </ol>
 */
final class BudgetPacingWorkload {

  static final String RATE_BUDGET = "pace-rate";
  static final String RATE_POLICY =
      "{\"allocation\":100,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":1000}}";
  static final int RATE_BURST = 100;
  static final long RATE_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  static final String MUTEX_BUDGET = "pace-mutex";
  static final String MUTEX_POLICY = "{\"allocation\":1,\"strategy\":{\"type\":\"while_in_flight\"}}";
  static final double TARGET_P99_MS = 2.0;

  private final BudgetEnv env;

  BudgetPacingWorkload(BudgetEnv env) {
    this.env = env;
  }

  Map<String, Object> run() {
    BenchOptions opt = env.opt();
    int n = opt.pacingJobs();
    String rateQueue = opt.queue() + "-pace-rate";
    String mutexQueue = opt.queue() + "-pace-mutex";
    String baseQueue = opt.queue() + "-pace-base";
    Map<String, Object> m = new LinkedHashMap<>();
    try (ServerCalls calls = env.calls()) {
      // (1) rate limit
      calls.putBudget(RATE_BUDGET, RATE_POLICY);
      // Unlimited prefetch, so the burst leaves at once and tokens accrued meanwhile do not
      // bunch up the first dispatches after it.
      PacingWorker rate = phase("rate", rateQueue, JobBodies.allTo(RATE_BUDGET), 0,
          Math.max(0, n - RATE_BURST) * RATE_PERIOD_NANOS);
      long[] all = rate.receipts();
      long[] receipts = Arrays.copyOfRange(all, Math.min(RATE_BURST, all.length), all.length);
      Distribution grid = Distribution.of(PacingMath.gridDeviations(receipts, RATE_PERIOD_NANOS));
      Distribution interval = Distribution.of(PacingMath.intervalDeviations(receipts, RATE_PERIOD_NANOS));
      long[] dispatchedMs = Arrays.copyOfRange(rate.dispatchedMs(), Math.min(RATE_BURST, all.length), all.length);
      if (Arrays.stream(dispatchedMs).anyMatch(ms -> ms < 0)) {
        throw new BenchFailure("a job arrived on the take stream without dequeued_at");
      }
      long[] dispatched = PacingMath.millisToNanos(dispatchedMs);
      Distribution dispatchGrid = Distribution.of(PacingMath.gridDeviations(dispatched, RATE_PERIOD_NANOS));
      long drift = PacingMath.drift(receipts, RATE_PERIOD_NANOS);
      double spanSec = receipts.length < 2 ? 0 : (receipts[receipts.length - 1] - receipts[0]) / 1e9;
      double achieved = spanSec == 0 ? 0 : (receipts.length - 1) / spanSec;
      env.say("[pacing] rate 100/s, %,d jobs after a burst of %d: |receipt - grid| ms: %s"
          + " (target p99 <= %.0f ms: %s)", receipts.length, RATE_BURST, grid.describeMs(), TARGET_P99_MS, BudgetEnv.verdict(Distribution.ms(grid.p99()) <= TARGET_P99_MS));
      env.say("[pacing]   |dispatched_at - grid| ms (server's dequeued_at, whole ms): %s (target p99 <= %.0f ms: %s)",
          dispatchGrid.describeMs(), TARGET_P99_MS, BudgetEnv.verdict(Distribution.ms(dispatchGrid.p99()) <= TARGET_P99_MS));
      env.say("[pacing]   |interval - 10 ms| ms: %s; achieved %.2f jobs/s, schedule slipped %+.1f ms over %.2f s",
          interval.describeMs(), achieved, Distribution.ms(drift), spanSec);

      // (2) concurrency limit
      calls.putBudget(MUTEX_BUDGET, MUTEX_POLICY);
      PacingWorker mutex = phase("concurrency", mutexQueue, JobBodies.allTo(MUTEX_BUDGET), opt.prefetch(), 0);
      Distribution handover = Distribution.of(PacingMath.ackToNext(mutex.ackSent(), mutex.receipts()));
      env.say("[pacing] while_in_flight 1, %,d jobs: ack sent -> next job received ms: %s (target p99 <= %.0f ms: %s)",
          n, handover.describeMs(), TARGET_P99_MS,
          BudgetEnv.verdict(Distribution.ms(handover.p99()) <= TARGET_P99_MS));

      // (3) the same handover without budgets
      PacingWorker base = phase("baseline", baseQueue, null, 1, 0);
      Distribution baseline = Distribution.of(PacingMath.ackToNext(base.ackSent(), base.receipts()));
      env.say("[pacing] baseline, unbound, prefetch 1, %,d jobs: ack sent -> next job received ms: %s",
          n, baseline.describeMs());

      int duplicates = rate.duplicates() + mutex.duplicates() + base.duplicates();
      int strays = rate.strays() + mutex.strays() + base.strays();
      env.say("[pacing] verify received %,d + %,d + %,d of %,d each, duplicates %,d, strays %,d",
          rate.received(), mutex.received(), base.received(), n, duplicates, strays);

      m.put("ok", duplicates == 0 && rate.received() == n && mutex.received() == n && base.received() == n);
      m.put("jobs", n);
      grid.putMs(m, "rate_grid");
      interval.putMs(m, "rate_interval");
      dispatchGrid.putMs(m, "rate_dispatch_grid");
      m.put("rate_achieved_per_s", ThroughputResult.round(achieved, 2));
      m.put("rate_slip_ms", ThroughputResult.round(Distribution.ms(drift), 3));
      handover.putMs(m, "mutex_handover");
      baseline.putMs(m, "base_handover");
      m.put("duplicates", duplicates);
      m.put("strays", strays);
      return m;
    } finally {
      try (ServerCalls calls = env.calls()) {
        // Jobs left by a failed phase hold their budget, so they go first.
        env.cleanUp(calls, BudgetEnv.deleteQueue(rateQueue), BudgetEnv.deleteQueue(mutexQueue),
            BudgetEnv.deleteQueue(baseQueue), BudgetEnv.deleteBudget(RATE_BUDGET), BudgetEnv.deleteBudget(MUTEX_BUDGET));
      }
    }
  }

  /**
   * Enqueues the backlog, then opens one worker on it and waits until every job was received and
   * acked. @param expectedNanos how long the budget itself should take, added to the phase timeout
   */
  private PacingWorker phase(String name, String queue, IntFunction<String> budgetKey, int prefetch,
      long expectedNanos) {
    BenchOptions opt = env.opt();
    int n = opt.pacingJobs();
    String nonce = BudgetEnv.nonce();
    List<Buffer> bodies = new JobBodies(queue, nonce, opt.payloadBytes(), budgetKey).bulk(n, opt.batch());
    HttpClientAgent connector = env.kit().connector();
    BulkEnqueuer enqueuer = new BulkEnqueuer(bodies, n, opt.batch());
    PacingWorker worker = new PacingWorker(env.kit().context(0), nonce, n);
    try {
      enqueuer.connect(env.contexts(1), connector, env.endpoint(), BudgetEnv.CONNECT_TIMEOUT_SEC);
      enqueuer.run(opt.phaseTimeoutSec());
      enqueuer.close();
      Await.result(worker.connect(connector, env.endpoint()), BudgetEnv.CONNECT_TIMEOUT_SEC, TimeUnit.SECONDS,
          "connecting the " + name + " worker");
      Await.result(worker.open(queue, prefetch), BudgetEnv.CONNECT_TIMEOUT_SEC, TimeUnit.SECONDS,
          "opening the " + name + " take stream");
      long timeoutSec = opt.phaseTimeoutSec() + TimeUnit.NANOSECONDS.toSeconds(expectedNanos);
      try {
        Await.result(worker.done(), timeoutSec, TimeUnit.SECONDS, name + " phase");
      } catch (BenchFailure e) {
        Await.quietly(worker.close(), 5_000);
        throw new BenchFailure(e.getMessage() + " (" + worker.received() + " of " + n + " jobs received)", e);
      }
      Await.quietly(worker.close(), 5_000);
      return worker;
    } finally {
      enqueuer.close();
      Await.quietly(worker.close(), 5_000);
      Await.quietly(connector.close(), 5_000);
    }
  }
}

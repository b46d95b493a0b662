package io.sluice.bench;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * budget-many: {@code --budgets} rate-limited budgets with staggered refills (budget i grants one
 * token per {@code 1000 + (i*37 % 1000)} ms), {@code --jobs-per-budget} jobs bound to each, all on
 * one queue, drained by --workers take streams with batched acks. This is the shape the server's
 * single wake-up timer has to handle: thousands of budgets coming due at different instants.
 *
 * <p>Measured over a fixed window (or until everything is dispatched, if sooner): dispatches per
 * second against what an ideal server would achieve in the same span, how late each budget's
 * dispatches come after its token is due, and the server's memory before and after. A dispatch
 * that comes clearly before its budget allows (more than 250 ms early) fails the run.
 */
final class BudgetManyWorkload {

  private static final long EARLY_TOLERANCE_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  private static final long GRACE_MILLIS = 250;
  private static final int CREATE_IN_FLIGHT = 16;

  private final BudgetEnv env;

  BudgetManyWorkload(BudgetEnv env) {
    this.env = env;
  }

  static String key(int budget) {
    return "b" + budget;
  }

  static String policy(int budget) {
    return "{\"allocation\":1,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":"
        + ManyBudgetsMath.durationMillis(budget) + "}}";
  }

  Map<String, Object> run() {
    BenchOptions opt = env.opt();
    int budgets = opt.budgets();
    int perBudget = opt.jobsPerBudget();
    if ((long) budgets * perBudget > Integer.MAX_VALUE) {
      throw new BenchFailure("--budgets x --jobs-per-budget is too large");
    }
    int jobs = budgets * perBudget;
    String queue = opt.queue() + "-many";
    String nonce = BudgetEnv.nonce();
    try (ServerCalls calls = env.calls()) {
      ProcStatus.Memory memStart = env.memory();

      long t0 = System.nanoTime();
      calls.expectAll(budgets, i -> new ServerCalls.Call(HttpMethod.PUT, "/budgets/" + key(i), policy(i)),
          CREATE_IN_FLIGHT, "creating " + budgets + " budgets", 200);
      double createSec = (System.nanoTime() - t0) / 1e9;
      env.say("[many] created %,d budgets in %.1f s (%,.0f/s)", budgets, createSec, budgets / createSec);

      List<Buffer> bodies = new JobBodies(queue, nonce, opt.payloadBytes(),
          seq -> key(ManyBudgetsMath.budgetOf(seq, perBudget))).bulk(jobs, opt.batch());
      HttpClientAgent connector = env.kit().connector();
      BulkEnqueuer enqueuer = new BulkEnqueuer(bodies, jobs, opt.batch());
      long enqueueNanos;
      try {
        enqueuer.connect(env.contexts(opt.lanes()), connector, env.endpoint(), BudgetEnv.CONNECT_TIMEOUT_SEC);
        enqueueNanos = enqueuer.run(opt.phaseTimeoutSec());
      } finally {
        enqueuer.close();
      }
      ProcStatus.Memory memSetup = env.memory();
      env.say("[many] enqueued %,d jobs (%d per budget) on queue '%s' in %.2f s (%,.0f jobs/s); server memory %s",
          jobs, perBudget, queue, enqueueNanos / 1e9, jobs / (enqueueNanos / 1e9), memSetup.describe());

      Drain drain = drain(connector, queue, nonce, jobs);
      Await.quietly(connector.close(), 5_000);
      ProcStatus.Memory memAfter = env.memory();

      long[] receipts = new long[jobs];
      long lastReceipt = 0;
      int received = 0;
      for (int i = 0; i < jobs; i++) {
        receipts[i] = drain.receipts.get(i);
        if (receipts[i] != 0) {
          received++;
          lastReceipt = Math.max(lastReceipt, receipts[i]);
        }
      }
      long windowNanos = TimeUnit.SECONDS.toNanos(opt.windowSec());
      boolean drained = received == jobs;
      long spanNanos = drained ? Math.min(windowNanos, lastReceipt) : windowNanos;
      int dispatched = 0;
      for (long r : receipts) {
        if (r != 0 && r <= spanNanos) {
          dispatched++;
        }
      }
      double rate = dispatched / (spanNanos / 1e9);
      long ideal = ManyBudgetsMath.idealDispatches(budgets, perBudget, spanNanos);
      ManyBudgetsMath.Gaps gaps = ManyBudgetsMath.gaps(receipts, budgets, perBudget, EARLY_TOLERANCE_NANOS);
      Distribution lateness = Distribution.of(gaps.lateness());
      DrainTracker.Tally tally = drain.tally;

      long idealDrain = ManyBudgetsMath.idealDrainNanos(budgets, perBudget);
      if (drained) {
        env.say("[many] all %,d jobs dispatched in %.2f s (an ideal server: %.2f s) = %,.0f dispatches/s",
            jobs, lastReceipt / 1e9, idealDrain / 1e9, rate);
      } else {
        env.say("[many] %,d dispatches in the %d s window = %,.0f dispatches/s; an ideal server: %,d (%.1f%%);"
            + " %,d of %,d jobs dispatched", dispatched, opt.windowSec(), rate, ideal, 100.0 * dispatched / ideal,
            received, jobs);
      }
      env.say("[many] lateness after the budget's token was due, ms: %s (%,d refills); early (> %d ms): %,d",
          lateness.describeMs(), lateness.count(), TimeUnit.NANOSECONDS.toMillis(EARLY_TOLERANCE_NANOS), gaps.early());
      env.say("[many] verify duplicates %,d, strays %,d, acked %,d, ack not_found %,d; server memory: start %s,"
              + " after setup %s, after %s",
          tally.duplicates(), tally.strays(), tally.acked(), tally.ackNotFound(),
          memStart.describe(), memSetup.describe(), memAfter.describe());

      Map<String, Object> m = new LinkedHashMap<>();
      boolean ok = tally.duplicates() == 0 && tally.ackNotFound() == 0 && gaps.early() == 0 && received > 0;
      m.put("ok", ok);
      m.put("budgets", budgets);
      m.put("jobs_per_budget", perBudget);
      m.put("window_s", opt.windowSec());
      m.put("create_budgets_s", ThroughputResult.round(createSec, 2));
      m.put("measured_s", ThroughputResult.round(spanNanos / 1e9, 3));
      m.put("dispatched", dispatched);
      m.put("dispatches_per_s", Math.round(rate));
      m.put("ideal_dispatched", ideal);
      m.put("ideal_pct", ThroughputResult.round(100.0 * dispatched / ideal, 2));
      m.put("drained", drained);
      m.put("drain_s", drained ? ThroughputResult.round(lastReceipt / 1e9, 3) : null);
      m.put("ideal_drain_s", ThroughputResult.round(idealDrain / 1e9, 3));
      lateness.putMs(m, "late");
      m.put("early", gaps.early());
      m.put("duplicates", tally.duplicates());
      m.put("strays", tally.strays());
      m.put("acked", tally.acked());
      m.put("ack_not_found", tally.ackNotFound());
      m.put("rss_start_mib", memStart.rssMiB());
      m.put("rss_setup_mib", memSetup.rssMiB());
      m.put("rss_after_mib", memAfter.rssMiB());
      m.put("rss_peak_mib", memAfter.peakRssMiB());
      return m;
    } finally {
      cleanUp(queue, budgets);
    }
  }

  /** On a shared server: the jobs left (if the window ended first), then the budgets. */
  private void cleanUp(String queue, int budgets) {
    if (!env.sharedServer()) {
      return;
    }
    try (ServerCalls calls = env.calls()) {
      env.cleanUp(calls, BudgetEnv.deleteQueue(queue));
      try {
        // 404: a budget a failed run never got to create.
        calls.expectAll(budgets, i -> BudgetEnv.deleteBudget(key(i)), CREATE_IN_FLIGHT,
            "deleting " + budgets + " budgets", 204, 404);
      } catch (BenchFailure e) {
        env.say("cleanup: " + e.getMessage());
      }
    }
  }

  private record Drain(AtomicLongArray receipts, DrainTracker.Tally tally) {}

  /**
   * Opens the streams with acking armed from the start and records each job's first arrival,
   * relative to the moment the first stream was opened (1 ns at the earliest, so 0 = never).
   */
  private Drain drain(HttpClientAgent connector, String queue, String nonce, int jobs) {
    BenchOptions opt = env.opt();
    DrainTracker tracker = new DrainTracker(jobs);
    AtomicLongArray receipts = new AtomicLongArray(jobs);
    AtomicLong origin = new AtomicLong();
    List<BatchAckWorker> workers = new ArrayList<>();
    try {
      List<Future<?>> connecting = new ArrayList<>();
      for (int i = 0; i < opt.workers(); i++) {
        BatchAckWorker w = new BatchAckWorker(env.kit().context(i), tracker, nonce, (seq, nanos) -> {
          if (seq >= 0 && seq < jobs) {
            receipts.compareAndSet(seq, 0, Math.max(1, nanos - origin.get()));
          }
        });
        workers.add(w);
        connecting.add(w.connect(connector, env.endpoint()));
      }
      Await.result(Future.all(connecting), BudgetEnv.CONNECT_TIMEOUT_SEC, TimeUnit.SECONDS, "connecting workers");
      for (BatchAckWorker w : workers) {
        w.go();
      }
      origin.set(System.nanoTime());
      List<Future<?>> opening = new ArrayList<>();
      for (BatchAckWorker w : workers) {
        opening.add(w.open(queue, opt.prefetch()));
      }
      Await.result(Future.all(opening), BudgetEnv.CONNECT_TIMEOUT_SEC, TimeUnit.SECONDS, "opening take streams");
      long deadline = origin.get() + TimeUnit.SECONDS.toNanos(opt.windowSec());
      Await.quietly(tracker.done(), Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (tracker.done().failed()) {
        throw new BenchFailure("drain: " + tracker.done().cause().getMessage(), tracker.done().cause());
      }
      sleep(GRACE_MILLIS);
      closeAll(workers);
      return new Drain(receipts, tracker.tally());
    } finally {
      closeAll(workers);
    }
  }

  private static void closeAll(List<BatchAckWorker> workers) {
    List<Future<?>> closing = new ArrayList<>();
    for (BatchAckWorker w : workers) {
      closing.add(w.close());
    }
    Await.quietly(Future.join(closing), 5_000);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

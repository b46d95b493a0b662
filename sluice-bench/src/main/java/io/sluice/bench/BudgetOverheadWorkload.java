package io.sluice.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * budget-overhead: workload (a) twice on the same server, once with unbound jobs and once with
 * every job bound to a budget so roomy it never parks anything (while_in_flight, allocation
 * 1,000,000 against a global in-flight limit of about a thousand). The difference is what the
 * budget bookkeeping itself costs per job: binding resolution on enqueue, acquire on dispatch,
 * release on ack. Target: at most 10%.
 *
 * <p>With a server warm-up, an unmeasured bound pass first warms the budget code too. Each run
 * makes four passes in the order A B B A (odd runs start unbound, even runs bound)
 * and compares the summed times of each side. The first pass on a server is measurably slower
 * than later ones (background compaction of the warm-up's data, page cache), and with two passes
 * per run that drift alone showed up as a ±50% "overhead" depending on which side went first;
 * A B B A cancels any drift that is linear in time within each run.
 */
final class BudgetOverheadWorkload {

  static final String BUDGET = "roomy";
  static final String POLICY = "{\"allocation\":1000000,\"strategy\":{\"type\":\"while_in_flight\"}}";
  static final double TARGET_PCT = 10.0;

  private final BudgetEnv env;

  BudgetOverheadWorkload(BudgetEnv env) {
    this.env = env;
  }

  Map<String, Object> run(int runNumber) {
    BenchOptions opt = env.opt();
    boolean boundFirst = runNumber % 2 == 0;
    try (ServerCalls calls = env.calls()) {
      env.warnIfCold("overhead");
      calls.putBudget(BUDGET, POLICY);
      warmUpBoundPath(opt);
      List<ThroughputResult> unbound = new ArrayList<>();
      List<ThroughputResult> bound = new ArrayList<>();
      for (boolean withBudget : passOrder(boundFirst)) {
        ThroughputResult r = new ThroughputWorkload(opt, env.kit(), env.endpoint(), withBudget ? BUDGET : null)
            .run(BudgetEnv.nonce());
        env.sayLines(r.describe(withBudget ? "[a bound]" : "[a unbound]"));
        (withBudget ? bound : unbound).add(r);
      }
      Totals u = Totals.of(unbound);
      Totals b = Totals.of(bound);
      double drainPct = overheadPct(u.drainRate(), b.drainRate());
      double enqueuePct = overheadPct(u.enqueueRate(), b.enqueueRate());
      env.say("[overhead] drain   unbound %,.0f jobs/s, bound %,.0f jobs/s -> %s time per job (target <= %.0f%%: %s)",
          u.drainRate(), b.drainRate(), BudgetEnv.percent(drainPct), TARGET_PCT,
          BudgetEnv.verdict(drainPct <= TARGET_PCT));
      env.say("[overhead] enqueue unbound %,.0f jobs/s, bound %,.0f jobs/s -> %s time per job (target <= %.0f%%: %s)"
              + " [order: %s]",
          u.enqueueRate(), b.enqueueRate(), BudgetEnv.percent(enqueuePct), TARGET_PCT,
          BudgetEnv.verdict(enqueuePct <= TARGET_PCT), boundFirst ? "bound unbound unbound bound" : "unbound bound bound unbound");

      Map<String, Object> m = new LinkedHashMap<>();
      m.put("ok", u.ok() && b.ok());
      m.put("order", boundFirst ? "bound-first" : "unbound-first");
      m.put("unbound_drain_jobs_per_s", Math.round(u.drainRate()));
      m.put("bound_drain_jobs_per_s", Math.round(b.drainRate()));
      m.put("drain_overhead_pct", ThroughputResult.round(drainPct, 2));
      m.put("unbound_enqueue_jobs_per_s", Math.round(u.enqueueRate()));
      m.put("bound_enqueue_jobs_per_s", Math.round(b.enqueueRate()));
      m.put("enqueue_overhead_pct", ThroughputResult.round(enqueuePct, 2));
      m.put("unbound", unbound.stream().map(ThroughputResult::toMap).toList());
      m.put("bound", bound.stream().map(ThroughputResult::toMap).toList());
      return m;
    } finally {
      cleanUp();
    }
  }

  /**
   * The server warm-up runs unbound jobs only, so the first bound pass would also pay for
   * compiling the budget code: one unmeasured bound pass, when the server is warmed up at all.
   */
  private void warmUpBoundPath(BenchOptions opt) {
    if (opt.serverWarmupRuns() == 0) {
      return;
    }
    ThroughputResult r = new ThroughputWorkload(opt.forServerWarmup(), env.kit(), env.endpoint(), BUDGET)
        .run(BudgetEnv.nonce());
    env.say("[overhead] bound-path warm-up (not measured): enqueue %,.0f jobs/s, drain %,.0f jobs/s",
        r.enqueueRate(), r.drainRate());
  }

  private void cleanUp() {
    try (ServerCalls calls = env.calls()) {
      env.cleanUp(calls, BudgetEnv.deleteBudget(BUDGET));
    }
  }

  /** A B B A, where A is the bound side when {@code boundFirst}. */
  static List<Boolean> passOrder(boolean boundFirst) {
    return List.of(boundFirst, !boundFirst, !boundFirst, boundFirst);
  }

  /** One side's passes pooled: rates are total jobs over total time. */
  record Totals(long jobs, long enqueueNanos, long drainNanos, boolean ok) {
    static Totals of(List<ThroughputResult> passes) {
      return new Totals(
          passes.stream().mapToLong(ThroughputResult::jobs).sum(),
          passes.stream().mapToLong(ThroughputResult::enqueueNanos).sum(),
          passes.stream().mapToLong(ThroughputResult::drainNanos).sum(),
          passes.stream().allMatch(ThroughputResult::ok));
    }

    double enqueueRate() {
      return jobs / (enqueueNanos / 1e9);
    }

    double drainRate() {
      return jobs / (drainNanos / 1e9);
    }
  }

  /**
   * Extra time per job of the bound run relative to the unbound one, in percent:
   * {@code (unboundRate / boundRate - 1) * 100}. Negative when the bound run happened to be faster.
   */
  static double overheadPct(double unboundRate, double boundRate) {
    return (unboundRate / boundRate - 1) * 100;
  }
}

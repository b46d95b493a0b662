package io.sluice.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * budget-overhead: workload (a) twice on the same server, once with unbound jobs and once with
 * every job bound to a budget so roomy it never parks anything (while_in_flight, allocation
 * 1,000,000 against a global in-flight limit of about a thousand). The difference is what the
 * budget bookkeeping itself costs per job: binding resolution on enqueue, acquire on dispatch,
 * release on ack. Target: at most 10%.
 *
 * <p>Odd runs go unbound-first, even runs bound-first, so that whatever drifts during a run (JIT
 * warming, store growth, page cache) favours each side equally over an even number of runs.
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
      ThroughputResult unbound = null;
      ThroughputResult bound = null;
      for (int pass = 0; pass < 2; pass++) {
        boolean withBudget = (pass == 0) == boundFirst;
        ThroughputResult r = new ThroughputWorkload(opt, env.kit(), env.endpoint(), withBudget ? BUDGET : null)
            .run(BudgetEnv.nonce());
        env.sayLines(r.describe(withBudget ? "[a bound]" : "[a unbound]"));
        if (withBudget) {
          bound = r;
        } else {
          unbound = r;
        }
      }
      double drainPct = overheadPct(unbound.drainRate(), bound.drainRate());
      double enqueuePct = overheadPct(unbound.enqueueRate(), bound.enqueueRate());
      env.say("[overhead] drain   unbound %,.0f jobs/s, bound %,.0f jobs/s -> %s time per job (target <= %.0f%%: %s)",
          unbound.drainRate(), bound.drainRate(), BudgetEnv.percent(drainPct), TARGET_PCT,
          BudgetEnv.verdict(drainPct <= TARGET_PCT));
      env.say("[overhead] enqueue unbound %,.0f jobs/s, bound %,.0f jobs/s -> %s time per job (target <= %.0f%%: %s)"
              + " [order: %s]",
          unbound.enqueueRate(), bound.enqueueRate(), BudgetEnv.percent(enqueuePct), TARGET_PCT,
          BudgetEnv.verdict(enqueuePct <= TARGET_PCT), boundFirst ? "bound first" : "unbound first");

      Map<String, Object> m = new LinkedHashMap<>();
      m.put("ok", unbound.ok() && bound.ok());
      m.put("order", boundFirst ? "bound-first" : "unbound-first");
      m.put("unbound_drain_jobs_per_s", Math.round(unbound.drainRate()));
      m.put("bound_drain_jobs_per_s", Math.round(bound.drainRate()));
      m.put("drain_overhead_pct", ThroughputResult.round(drainPct, 2));
      m.put("unbound_enqueue_jobs_per_s", Math.round(unbound.enqueueRate()));
      m.put("bound_enqueue_jobs_per_s", Math.round(bound.enqueueRate()));
      m.put("enqueue_overhead_pct", ThroughputResult.round(enqueuePct, 2));
      m.put("unbound", unbound.toMap());
      m.put("bound", bound.toMap());
      return m;
    } finally {
      cleanUp();
    }
  }

  private void cleanUp() {
    try (ServerCalls calls = env.calls()) {
      env.cleanUp(calls, BudgetEnv.deleteBudget(BUDGET));
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

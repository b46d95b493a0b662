package io.sluice.bench;

import io.sluice.bench.BudgetOverheadWorkload.Totals;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * budget-durable: workload (a) on the same server with every job bound to a roomy time_based
 * budget (1,000,000 per second, burst 1,000,000: it never parks anything), once plain and once
 * durable (X4). The difference is what keeping the token state costs a drain: one small record
 * written per dispatch pass, and deliveries that wait for that commit. Passes run A B B A like
 * budget-overhead (odd runs start plain, even runs durable), so drift within a run cancels.
 */
final class BudgetDurableWorkload {
  static final String PLAIN = "rate-plain";
  static final String DURABLE = "rate-durable";
  private static final String POLICY = "{\"allocation\":1000000,\"strategy\":{\"type\":"
      + "\"time_based\",\"duration_ms\":1000,\"burst\":1000000},\"durable\":%s}";

  private final BudgetEnv env;

  BudgetDurableWorkload(BudgetEnv env) {
    this.env = env;
  }

  Map<String, Object> run(int runNumber) {
    BenchOptions opt = env.opt();
    boolean durableFirst = runNumber % 2 == 0;
    try (ServerCalls calls = env.calls()) {
      env.warnIfCold("durable");
      calls.putBudget(PLAIN, POLICY.formatted(false));
      calls.putBudget(DURABLE, POLICY.formatted(true));
      warmUpBoundPaths(opt);
      List<ThroughputResult> plain = new ArrayList<>();
      List<ThroughputResult> durable = new ArrayList<>();
      for (boolean isDurable : BudgetOverheadWorkload.passOrder(durableFirst)) {
        ThroughputResult r = new ThroughputWorkload(opt, env.kit(), env.endpoint(),
            isDurable ? DURABLE : PLAIN).run(BudgetEnv.nonce());
        env.sayLines(r.describe(isDurable ? "[a durable]" : "[a plain]"));
        (isDurable ? durable : plain).add(r);
      }
      Totals p = Totals.of(plain);
      Totals d = Totals.of(durable);
      double drainPct = BudgetOverheadWorkload.overheadPct(p.drainRate(), d.drainRate());
      env.say("[durable] drain plain %,.0f jobs/s, durable %,.0f jobs/s -> %s time per job"
              + " [order: %s]", p.drainRate(), d.drainRate(), BudgetEnv.percent(drainPct),
          durableFirst ? "durable plain plain durable" : "plain durable durable plain");

      Map<String, Object> m = new LinkedHashMap<>();
      m.put("ok", p.ok() && d.ok());
      m.put("order", durableFirst ? "durable-first" : "plain-first");
      m.put("plain_drain_jobs_per_s", Math.round(p.drainRate()));
      m.put("durable_drain_jobs_per_s", Math.round(d.drainRate()));
      m.put("drain_overhead_pct", ThroughputResult.round(drainPct, 2));
      m.put("plain", plain.stream().map(ThroughputResult::toMap).toList());
      m.put("durable", durable.stream().map(ThroughputResult::toMap).toList());
      return m;
    } finally {
      cleanUp();
    }
  }

  /** One unmeasured pass on each budget, so neither side pays for compiling its code path. */
  private void warmUpBoundPaths(BenchOptions opt) {
    if (opt.serverWarmupRuns() == 0) {
      return;
    }
    for (String budget : List.of(PLAIN, DURABLE)) {
      ThroughputResult r = new ThroughputWorkload(opt.forServerWarmup(), env.kit(),
          env.endpoint(), budget).run(BudgetEnv.nonce());
      env.say("[durable] %s warm-up (not measured): drain %,.0f jobs/s", budget, r.drainRate());
    }
  }

  private void cleanUp() {
    try (ServerCalls calls = env.calls()) {
      env.cleanUp(calls, BudgetEnv.deleteBudget(PLAIN), BudgetEnv.deleteBudget(DURABLE));
    }
  }
}

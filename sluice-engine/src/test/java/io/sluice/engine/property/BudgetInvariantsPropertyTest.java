package io.sluice.engine.property;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.property.Ops.Op;
import io.sluice.engine.property.Ops.Profile;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * DESIGN.md budget invariants 1–6 over random sequences of budget administration (PUT, POST,
 * PATCH, DELETE), enqueues of jobs bound to 0–3 budgets (some creating them with
 * {@code create_with}, some scheduled), worker streams, acks, acks settling the real cost (X5:
 * refunds and debt, checked against the model's bucket through the published state), failures
 * (retry_at in the past, now, later, backoff, kill), budget pauses and failures reported as
 * throttled (X6), disconnects, and clock moves of 0 ms to 5 minutes, all driven through a real
 * {@link io.sluice.engine.Engine}. {@link EngineScenario} says exactly what is checked after
 * every turn; a failure prints the shrunk scenario as a readable operation log.
 *
 * <p>Four scenario mixes: both strategies (with the default or a small global in-flight limit),
 * concurrency budgets only (strict in-flight accounting, debt after narrowing, no §7 strategy
 * switches), rate budgets only (windows, wake-ups, rate changes), and both strategies, durable or
 * not, across restarts of the server (X4). Every mix has partitioned budgets (X3): a third of
 * the policies, bindings naming "p0".."p2", pauses of one partition; invariants 1–3 and 5 then
 * hold per pool (budget key, partition). The shrunk counterexamples
 * these found in the engine before e7dde79 are kept as {@link HeadReEvaluationRegressionTest}.
 */
class BudgetInvariantsPropertyTest {
  private static final int TRIES = 200;
  private static final int MAX_STEPS = 150;

  @Property(tries = TRIES)
  void mixedBudgetsKeepTheInvariants(@ForAll("mixed") List<Op> ops,
      @ForAll("globalLimit") int globalLimit) {
    run(globalLimit, ops);
  }

  @Property(tries = TRIES)
  void concurrencyBudgetsKeepTheInvariants(@ForAll("concurrency") List<Op> ops) {
    run(0, ops);
  }

  @Property(tries = TRIES)
  void rateBudgetsKeepTheInvariants(@ForAll("rate") List<Op> ops) {
    run(EngineConfig.DEFAULT_GLOBAL_IN_FLIGHT_LIMIT, ops);
  }

  /**
   * X4: with restarts of the server in the mix, a durable rate budget never dispatches more over
   * any window than an uninterrupted run allows (the model keeps its bucket and history across the
   * restart), and every other bucket starts full again.
   */
  @Property(tries = TRIES)
  void durableBudgetsKeepTheInvariantsAcrossRestarts(@ForAll("restarts") List<Op> ops) {
    run(EngineConfig.DEFAULT_GLOBAL_IN_FLIGHT_LIMIT, ops);
  }

  private static void run(int globalLimit, List<Op> ops) {
    EngineScenario scenario = new EngineScenario(globalLimit);
    scenario.run(ops);
    Statistics.label("dispatches").collect(bucket(scenario.dispatches));
    Statistics.label("refused admin calls").collect(scenario.refusals > 0);
    Statistics.label("wake-ups while advancing").collect(bucket(scenario.ticks));
    Statistics.label("throttled failures").collect(bucket(scenario.throttles));
    Statistics.label("restarts").collect(bucket(scenario.restarts));
  }

  private static String bucket(int n) {
    return n == 0 ? "0" : n < 20 ? "1-19" : n < 100 ? "20-99" : "100+";
  }

  @Provide
  Arbitrary<List<Op>> mixed() {
    return Ops.scenarios(Profile.MIXED, MAX_STEPS);
  }

  @Provide
  Arbitrary<List<Op>> concurrency() {
    return Ops.scenarios(Profile.CONCURRENCY_ONLY, MAX_STEPS);
  }

  @Provide
  Arbitrary<List<Op>> rate() {
    return Ops.scenarios(Profile.RATE_HEAVY, MAX_STEPS);
  }

  @Provide
  Arbitrary<List<Op>> restarts() {
    return Ops.scenarios(Profile.RESTARTS, MAX_STEPS);
  }

  /** The default limit (1024, never reached here) or a small one that often is. */
  @Provide
  Arbitrary<Integer> globalLimit() {
    return Arbitraries.frequency(Tuple.of(2, EngineConfig.DEFAULT_GLOBAL_IN_FLIGHT_LIMIT),
        Tuple.of(1, 1), Tuple.of(1, 2), Tuple.of(1, 4));
  }
}

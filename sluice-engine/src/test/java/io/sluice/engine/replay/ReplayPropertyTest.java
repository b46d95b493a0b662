package io.sluice.engine.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.EngineConfig;
import io.sluice.engine.replay.Commands.Step;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Assume;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Issue 13's replay property, over random scripts of every engine command (single and bulk
 * enqueues with budgets, create_with, ready_at, unique keys and batches; take streams, paced or
 * not; acks, bulk acks, failures with retry_at, backoff jitter or kill; patches, deletions and
 * rebinding, one job or a filter's worth; budget and cron administration; reset) and clock
 * moves, played the way the engine loop plays them ({@link ReplayRun}):
 *
 * <ul>
 *   <li>the same script with the same id seed gives the same stored mutations, answers and
 *       deliveries, in the same order;
 *   <li>the mutations it stored, recovered into a fresh engine, give the state of the engine
 *       that wrote them, once that engine is in a state recovery can reproduce (every stream
 *       closed, every bucket full again: {@link ReplayRun#settle}); and every write named the
 *       index entry its record had.
 * </ul>
 */
class ReplayPropertyTest {
  private static final int TRIES = 200;
  private static final int MAX_STEPS = 60;

  @Property(tries = TRIES)
  void theSameScriptWritesAnswersAndDeliversTheSame(@ForAll("scripts") List<Step> script,
      @ForAll long seed, @ForAll("globalLimits") int globalInFlightLimit) {
    ReplayRun first = ReplayRun.play(seed, globalInFlightLimit, script);
    ReplayRun second = ReplayRun.play(seed, globalInFlightLimit, script);

    assertThat(second.transcript()).containsExactlyElementsOf(first.transcript());
    ReplayClient.Coverage reached = first.coverage();
    Statistics.label("jobs delivered").collect(bucket(reached.deliveries));
    Statistics.label("cron fires").collect(bucket(reached.cronFires));
    Statistics.label("enqueues folded into a batch").collect(bucket(reached.folds));
    Statistics.label("enqueues answered as duplicates").collect(bucket(reached.duplicates));
    Statistics.label("commands refused").collect(bucket(reached.refusals));
  }

  private static String bucket(int n) {
    return n == 0 ? "0" : n < 5 ? "1-4" : n < 20 ? "5-19" : "20+";
  }

  @Property(tries = TRIES)
  void recoveringTheStoredMutationsGivesTheStateThatWroteThem(
      @ForAll("scripts") List<Step> script, @ForAll long seed,
      @ForAll("globalLimits") int globalInFlightLimit) {
    ReplayRun run = ReplayRun.play(seed, globalInFlightLimit, script);
    run.settle();
    ReplayRun.Recovered recovered = run.recover();

    assertThat(run.store().indexDrift()).isEmpty();
    Statistics.label("recovery gave a unique key to a ready job").collect(
        recovered.gaveAClaimAway());
    // The one divergence known: a ready job without its free unique key gets it on recovery.
    // ReadyJobWithoutItsClaimTest shows it; such scripts are not checked further here.
    Assume.that(!recovered.gaveAClaimAway());
    assertThat(recovered.state().lines()).containsExactlyElementsOf(
        run.liveState().lines().toList());
  }

  @Provide
  Arbitrary<List<Step>> scripts() {
    return Commands.scripts(MAX_STEPS);
  }

  /** Unlimited, the default (never reached here), or small enough to hold dispatch back. */
  @Provide
  Arbitrary<Integer> globalLimits() {
    return Arbitraries.frequency(Tuple.of(1, 0),
        Tuple.of(2, EngineConfig.DEFAULT_GLOBAL_IN_FLIGHT_LIMIT), Tuple.of(1, 2));
  }
}

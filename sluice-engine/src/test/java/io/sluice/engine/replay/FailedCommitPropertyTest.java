package io.sluice.engine.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.replay.Commands.Step;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * The replay scripts of {@link ReplayPropertyTest} with turns whose commit the store fails
 * (issue 13: a failed commit changes nothing). Every failed turn is rolled back, and the state
 * is then what it was before that turn in every part that a state rebuilt from the store
 * reproduces ({@code ReplayRun#rebuildable} leaves out what {@link ScheduledOpenBatchTest} and
 * {@link ReadyJobWithoutItsClaimTest} show; turns that {@link RequeuedJobWithALaterReadyAtTest}
 * shows are not compared). The run goes on and stays deterministic: the same script and seed
 * give the same transcript, lost writes included. In the end, what was committed, recovered, is
 * the live state.
 */
class FailedCommitPropertyTest {
  private static final int TRIES = 200;
  private static final int MAX_STEPS = 60;

  @Property(tries = TRIES)
  void failedCommitsLeaveNoTraceAndTheRunGoesOn(@ForAll("scripts") List<Step> script,
      @ForAll long seed, @ForAll("globalLimits") int globalInFlightLimit) {
    ReplayRun first = ReplayRun.play(seed, globalInFlightLimit, script);
    ReplayRun second = ReplayRun.play(seed, globalInFlightLimit, script);

    assertThat(first.rollbackMismatches()).isEmpty();
    Statistics.label("failed commits").collect(first.rollbacks());
    Statistics.label("rollbacks that dropped an open batch of a job not ready")
        .collect(first.droppedOpenBatches());
    Statistics.label("rollbacks not compared: a ready job was due later")
        .collect(first.uncomparedRollbacks());
    Statistics.label("rollbacks not compared on claims: a job lacked its free key")
        .collect(first.uncomparedClaims());
    assertThat(second.transcript()).containsExactlyElementsOf(first.transcript());

    first.settle();
    ReplayRun.Recovered recovered = first.recover();
    assertThat(first.store().indexDrift()).isEmpty();
    Assume.that(!recovered.gaveAClaimAway()); // see ReadyJobWithoutItsClaimTest
    assertThat(recovered.state().lines()).containsExactlyElementsOf(
        first.liveState().lines().toList());
  }

  @Provide
  Arbitrary<List<Step>> scripts() {
    return Commands.scriptsWithFailedCommits(MAX_STEPS);
  }

  @Provide
  Arbitrary<Integer> globalLimits() {
    return Arbitraries.of(0, 2, 1024);
  }
}

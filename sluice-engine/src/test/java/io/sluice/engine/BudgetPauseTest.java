package io.sluice.engine;

import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.timeBased;
import static io.sluice.engine.EngineHarness.whileInFlight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.JobWait.BudgetWait;
import io.sluice.engine.job.JobSnapshot;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Pausing a budget (X6) on a manual clock: nothing bound to it goes while the pause lasts, a
 * time_based pool accrues nothing and resumes with what it had, a pause never shortens another,
 * resume ends it at once, and the pause outlasts a restart.
 */
class BudgetPauseTest {
  private final EngineHarness h = EngineHarness.create();

  private void pauseFor(String key, long forMs) {
    h.turn((engine, nowMs) -> engine.budgetAdmin().pause(key, forMs, null, nowMs));
  }

  private void step(long ms) {
    h.advanceMs(ms);
    h.runDue();
  }

  @Test
  void aPausedRateBudgetAccruesNothingAndResumesWithWhatItHad() {
    h.budget("rate", timeBased(1, Duration.ofSeconds(1)));
    h.openWorker("q", 10);
    JobSnapshot first = h.enqueue(job("q").budget("rate"));
    JobSnapshot second = h.enqueue(job("q").budget("rate"));
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(first.id());
    long spentAt = h.nowMs();

    step(500);
    pauseFor("rate", 5_000);
    step(4_999);
    assertThat(h.dispatch()).isEmpty();
    assertThat(h.engine().budgetStates().get("rate").pausedUntilMs(h.nowMs()))
        .isEqualTo(spentAt + 5_500);
    // Half a token had accrued before the pause; the other half takes 500 ms after it.
    step(1);
    assertThat(h.dispatch()).isEmpty();
    step(499);
    assertThat(h.dispatch()).isEmpty();
    step(1);
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(second.id());
    assertThat(h.engine().budgetStates().get("rate").pausedUntilMs(h.nowMs())).isNull();
  }

  @Test
  void aPausedConcurrencyBudgetHoldsItsJobsUntilTheEndOfThePause() {
    h.budget("pool", whileInFlight(2));
    h.openWorker("q", 10);
    pauseFor("pool", 1_000);
    JobSnapshot held = h.enqueue(job("q").budget("pool"));
    long until = h.nowMs() + 1_000;

    JobWait wait = h.turn((engine, nowMs) -> engine.explainWait(held.id(), nowMs));
    assertThat(wait.waitingFor()).isEqualTo(JobWait.WaitingFor.BUDGETS);
    assertThat(wait.budgets()).containsExactly(
        new BudgetWait("pool", 1, true, JobWait.Reason.PAUSED, 2, 0, 0, null));
    assertThat(h.engine().budgetStates().get("pool").pausedUntilMs(h.nowMs())).isEqualTo(until);
    step(999);
    assertThat(h.dispatch()).isEmpty();
    step(1);
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(held.id());
  }

  @Test
  void aShorterPauseDoesNotShortenALongerOneAndResumeEndsItAtOnce() {
    h.budget("pool", whileInFlight(1));
    h.openWorker("q", 10);
    pauseFor("pool", 5_000);
    pauseFor("pool", 1_000);
    JobSnapshot held = h.enqueue(job("q").budget("pool"));

    step(1_000);
    assertThat(h.dispatch()).isEmpty();
    assertThat(h.budgets().get("pool").pausedUntilMs()).isEqualTo(h.nowMs() + 4_000);
    h.turn((engine, nowMs) -> engine.budgetAdmin().resume("pool", nowMs));
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(held.id());
    assertThat(h.budgets().get("pool").pausedUntilMs()).isNull();
  }

  @Test
  void aPauseIsStoredWithTheBudgetAndOutlastsARestart() {
    h.budget("pool", whileInFlight(1));
    pauseFor("pool", 2_000);
    JobSnapshot held = h.enqueue(job("q").budget("pool"));

    EngineHarness restarted = h.restart(List.of(held));
    restarted.openWorker("q", 10);
    assertThat(restarted.dispatch()).isEmpty();
    restarted.advanceMs(2_000);
    restarted.runDue();
    assertThat(restarted.dispatch()).extracting(JobSnapshot::id).containsExactly(held.id());
  }

  @Test
  void anUnknownBudgetCannotBePaused() {
    assertThatThrownBy(() -> pauseFor("missing", 1_000))
        .isInstanceOf(SluiceException.NotFound.class);
  }
}

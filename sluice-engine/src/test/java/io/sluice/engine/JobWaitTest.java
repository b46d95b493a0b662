package io.sluice.engine;

import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.timeBased;
import static io.sluice.engine.EngineHarness.whileInFlight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.JobWait.BudgetWait;
import io.sluice.engine.JobWait.Reason;
import io.sluice.engine.JobWait.WaitingFor;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * "Why is this job waiting?" (X2) and the live budget state (X1) at engine level, on a manual
 * clock: every {@code waiting_for} and {@code reason}, and the exact instants at which tokens
 * accrue, checked one millisecond before and at them.
 */
class JobWaitTest {
  private static final Duration SECOND = Duration.ofSeconds(1);

  private final EngineHarness h = EngineHarness.create();

  private JobWait whyWaiting(JobSnapshot job) {
    return h.turn((engine, nowMs) -> engine.explainWait(job.id(), nowMs));
  }

  private BudgetWait only(JobWait wait) {
    assertThat(wait.budgets()).hasSize(1);
    return wait.budgets().get(0);
  }

  private BudgetState state(String key) {
    return h.engine().budgetStates().get(key);
  }

  @Nested
  class WaitingFor {
    @Test
    void aScheduledJobWaitsForItsReadyTime() {
      JobSnapshot later = h.enqueue(job("q").readyAtMs(h.nowMs() + 5_000));

      JobWait wait = whyWaiting(later);

      assertThat(wait.waitingFor()).isEqualTo(JobWait.WaitingFor.READY_AT);
      assertThat(wait.job().readyAtMs()).isEqualTo(h.nowMs() + 5_000);
      assertThat(wait.budgets()).isEmpty();
      assertThat(wait.estimatedDispatchAtMs()).isNull();
    }

    @Test
    void anUnboundReadyJobWaitsForAWorkerAndStopsWaitingWhenOneConnects() {
      JobSnapshot ready = h.enqueue("q");

      assertThat(whyWaiting(ready).waitingFor()).isEqualTo(JobWait.WaitingFor.WORKER);

      h.openWorker("q", 1);
      h.dispatch();
      JobWait taken = whyWaiting(ready);
      assertThat(taken.waitingFor()).isNull();
      assertThat(taken.job().status().wireName()).isEqualTo("in_flight");
    }

    @Test
    void aBoundJobItsBudgetsCanPayForWaitsForAWorker() {
      h.budget("pool", whileInFlight(2));
      JobSnapshot ready = h.enqueue(job("q").budget("pool"));

      JobWait wait = whyWaiting(ready);

      assertThat(wait.waitingFor()).isEqualTo(JobWait.WaitingFor.WORKER);
      assertThat(only(wait)).isEqualTo(new BudgetWait("pool", 1, false, null, 2, 0, 0, null));
    }

    @Test
    void aFinishedJobWaitsForNothingAndAnUnknownOneIsNotFound() {
      JobSnapshot done = h.enqueue(job("q").retention(
          new io.sluice.engine.job.RetentionPolicy(60_000L, null)));
      h.openWorker("q", 1);
      h.dispatch();
      h.ack(done.id());

      assertThat(whyWaiting(done).waitingFor()).isNull();
      assertThatThrownBy(() -> h.turn((engine, nowMs) ->
          engine.explainWait(JobId.parseOrNull("03hc5xyf0parppnub42r2fsye"), nowMs)))
          .isInstanceOf(SluiceException.NotFound.class);
    }
  }

  @Nested
  class TimeBased {
    /** One token a second, spent by a first job, so the rest wait for the drip. */
    private List<JobSnapshot> drained(int waiting) {
      h.budget("rate", timeBased(1, SECOND));
      JobSnapshot first = h.enqueue(job("q").budget("rate"));
      h.openWorker("q", 10);
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(first.id());
      JobSnapshot[] rest = new JobSnapshot[waiting];
      for (int i = 0; i < waiting; i++) {
        rest[i] = h.enqueue(job("q").budget("rate"));
      }
      return List.of(rest);
    }

    @Test
    void theHeadWaitsForTokensUntilTheExactMillisecondTheyAccrue() {
      JobSnapshot head = drained(1).get(0);
      long refillAt = h.nowMs() + 1_000;

      JobWait wait = whyWaiting(head);
      assertThat(wait.waitingFor()).isEqualTo(JobWait.WaitingFor.BUDGETS);
      assertThat(only(wait)).isEqualTo(
          new BudgetWait("rate", 1, true, Reason.TOKENS, 0, 0, 0, refillAt));
      assertThat(wait.estimatedDispatchAtMs()).isEqualTo(refillAt);

      h.advanceMs(999);
      h.runDue();
      assertThat(only(whyWaiting(head)).availableAtMs()).isEqualTo(refillAt);
      assertThat(h.dispatch()).isEmpty();

      h.advanceMs(1);
      h.runDue();
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(head.id());
      assertThat(whyWaiting(head).waitingFor()).isNull();
    }

    @Test
    void aJobBehindOthersWaitsInTheQueueUntilTheTokensForAllOfThemAccrue() {
      List<JobSnapshot> waiting = drained(3);
      long start = h.nowMs();

      BudgetWait third = only(whyWaiting(waiting.get(2)));

      assertThat(third).isEqualTo(
          new BudgetWait("rate", 1, true, Reason.QUEUE, 0, 2, 2, start + 3_000));
      assertThat(whyWaiting(waiting.get(2)).estimatedDispatchAtMs()).isEqualTo(start + 3_000);
      // The two ahead spend each token as it arrives, as the estimate assumes.
      for (int i = 0; i < 2; i++) {
        h.advanceMs(1_000);
        h.runDue();
        assertThat(h.dispatch()).extracting(JobSnapshot::id)
            .containsExactly(waiting.get(i).id());
      }
      h.advanceMs(999);
      h.runDue();
      assertThat(h.dispatch()).isEmpty();
      assertThat(only(whyWaiting(waiting.get(2)))).isEqualTo(
          new BudgetWait("rate", 1, true, Reason.TOKENS, 0, 0, 0, start + 3_000));
      h.advanceMs(1);
      h.runDue();
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(waiting.get(2).id());
    }

    @Test
    void theLiveStateShowsTokensNextTokenAndFullInstants() {
      h.budget("burst", timeBased(2, Duration.ofSeconds(10), 4));
      h.openWorker("q", 10);
      h.enqueue(job("q").budget("burst", 3L));
      h.dispatch();
      long spentAt = h.nowMs();

      BudgetState state = state("burst");
      assertThat(state.tokensAt(spentAt)).isEqualTo(1);
      assertThat(state.capacity()).isEqualTo(4);
      assertThat(state.inFlightJobs()).isEqualTo(1);
      assertThat(state.inFlightCost()).isEqualTo(3);
      assertThat(state.dispatched()).isEqualTo(1);
      // Two tokens per ten seconds: one every five seconds, full three tokens later.
      assertThat(state.nextTokenAtMs(spentAt)).isEqualTo(spentAt + 5_000);
      assertThat(state.fullAtMs(spentAt)).isEqualTo(spentAt + 15_000);
      assertThat(state.tokensAt(spentAt + 4_999)).isEqualTo(1);
      assertThat(state.tokensAt(spentAt + 5_000)).isEqualTo(2);
      assertThat(state.fullAtMs(spentAt + 15_000)).isNull();
    }
  }

  @Nested
  class TokensAlreadyThere {
    @Test
    void aJobBehindOthersWhoseTokensAreThereIsAvailableNow() {
      h.budget("rate", timeBased(5, SECOND));
      JobSnapshot first = h.enqueue(job("q").budget("rate"));
      JobSnapshot second = h.enqueue(job("q").budget("rate"));

      JobWait wait = whyWaiting(second);

      assertThat(only(wait)).isEqualTo(
          new BudgetWait("rate", 1, true, Reason.QUEUE, 5, 1, 1, h.nowMs()));
      assertThat(wait.estimatedDispatchAtMs()).isEqualTo(h.nowMs());
      assertThat(whyWaiting(first).waitingFor()).isEqualTo(JobWait.WaitingFor.WORKER);
    }
  }

  @Nested
  class Concurrency {
    @Test
    void theHeadWaitsForASlotWithNoInstantAndTheStateCountsWhoWaits() {
      h.budget("pool", whileInFlight(1));
      h.openWorker("q", 10);
      h.enqueue(job("q").budget("pool"));
      h.dispatch();
      JobSnapshot head = h.enqueue(job("q").budget("pool", 1L));
      JobSnapshot behind = h.enqueue(job("q").budget("pool", 1L));

      JobWait wait = whyWaiting(head);
      assertThat(wait.waitingFor()).isEqualTo(JobWait.WaitingFor.BUDGETS);
      assertThat(only(wait)).isEqualTo(
          new BudgetWait("pool", 1, true, Reason.CONCURRENCY, 0, 0, 0, null));
      assertThat(wait.estimatedDispatchAtMs()).isNull();
      assertThat(only(whyWaiting(behind)).reason()).isEqualTo(Reason.QUEUE);
      assertThat(only(whyWaiting(behind)).aheadJobs()).isEqualTo(1);
      BudgetState state = state("pool");
      assertThat(state.waitingJobs()).isEqualTo(2);
      assertThat(state.waitingCost()).isEqualTo(2);
      assertThat(state.nextTokenAtMs(h.nowMs())).isNull();
      assertThat(state.fullAtMs(h.nowMs())).isNull();
    }

    @Test
    void afterAShrinkBelowWhatRunsTheHeadWaitsForTheDebt() {
      h.budget("pool", whileInFlight(2));
      h.openWorker("q", 10);
      h.enqueue(job("q").budget("pool"), job("q").budget("pool"));
      assertThat(h.dispatch()).hasSize(2);
      h.patchAllocation("pool", 1);
      JobSnapshot head = h.enqueue(job("q").budget("pool"));

      assertThat(only(whyWaiting(head)).reason()).isEqualTo(Reason.DEBT);
      assertThat(state("pool").debtAt(h.nowMs())).isEqualTo(1);
    }
  }

  @Nested
  class SeveralBudgets {
    @Test
    void onlyTheBudgetThatCannotPayHoldsTheJobBack() {
      h.budget("rate", timeBased(1, SECOND)).budget("pool", whileInFlight(5));
      h.openWorker("q", 10);
      h.enqueue(job("q").budget("rate"));
      h.dispatch();
      JobSnapshot both = h.enqueue(job("q").budget("rate").budget("pool"));
      long refillAt = h.nowMs() + 1_000;

      JobWait wait = whyWaiting(both);

      assertThat(wait.waitingFor()).isEqualTo(JobWait.WaitingFor.BUDGETS);
      assertThat(wait.budgets()).containsExactly(
          new BudgetWait("rate", 1, true, Reason.TOKENS, 0, 0, 0, refillAt),
          new BudgetWait("pool", 1, false, null, 5, 0, 0, null));
      assertThat(wait.estimatedDispatchAtMs()).isEqualTo(refillAt);
    }

    @Test
    void aJobHeadingOneOfItsBudgetsIsNotHeldBackByJobsAheadInAnother() {
      h.budget("shared", whileInFlight(5)).budget("full", whileInFlight(1))
          .budget("own", whileInFlight(1));
      h.openWorker("q", 10);
      h.enqueue(job("q").budget("full"));
      h.dispatch();
      JobSnapshot stuck = h.enqueue(job("q").budget("shared").budget("full"));
      JobSnapshot heads = h.enqueue(job("q").budget("shared").budget("own"));

      JobWait wait = whyWaiting(heads);
      assertThat(wait.budgets()).containsExactly(
          new BudgetWait("shared", 1, false, null, 5, 1, 1, null),
          new BudgetWait("own", 1, false, null, 1, 0, 0, null));
      assertThat(wait.waitingFor()).isEqualTo(JobWait.WaitingFor.WORKER);
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(heads.id());
      assertThat(whyWaiting(stuck).budgets()).extracting(BudgetWait::reason)
          .containsExactly(null, Reason.CONCURRENCY);
    }

    @Test
    void aJobHeadingNoneOfItsBudgetsWaitsInTheQueueOfEach() {
      h.budget("a", whileInFlight(1)).budget("b", whileInFlight(1));
      h.openWorker("q", 10);
      h.enqueue(job("q").budget("a"), job("q").budget("b"));
      h.dispatch();
      h.enqueue(job("q").budget("a"), job("q").budget("b"));
      JobSnapshot last = h.enqueue(job("q").budget("a").budget("b"));

      assertThat(whyWaiting(last).budgets()).extracting(BudgetWait::reason, BudgetWait::aheadJobs)
          .containsExactly(
              org.assertj.core.groups.Tuple.tuple(Reason.QUEUE, 1L),
              org.assertj.core.groups.Tuple.tuple(Reason.QUEUE, 1L));
      assertThat(whyWaiting(last).estimatedDispatchAtMs()).isNull();
    }
  }
}

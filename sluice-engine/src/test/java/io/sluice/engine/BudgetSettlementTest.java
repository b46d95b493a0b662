package io.sluice.engine;

import static io.sluice.engine.EngineHarness.failure;
import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.timeBased;
import static io.sluice.engine.EngineHarness.whileInFlight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.JobWait.BudgetWait;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.budget.JobSettlement;
import io.sluice.engine.budget.Settlement;
import io.sluice.engine.job.Binding;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.store.Mutation;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Settling the real cost at acknowledgement (X5) on a manual clock: a rate budget takes the
 * difference from its pool and owes what the pool cannot cover, its drip pays the debt before any
 * token, a refund pays debt first and never fills above the capacity, and a refused settlement
 * acknowledges nothing.
 */
class BudgetSettlementTest {
  /** Completed jobs are kept a minute, so their settled bindings can be read. */
  private static final RetentionPolicy KEPT = new RetentionPolicy(60_000L, null);

  private final EngineHarness h = EngineHarness.create();

  /** "llm": 10 tokens per 10 s (one a second), capacity 10. */
  private void llmBudget() {
    h.budget("llm", timeBased(10, Duration.ofSeconds(10)));
    h.openWorker("q", 10);
  }

  private JobSnapshot dispatchedJob(long cost) {
    JobSnapshot job = h.enqueue(job("q").budget("llm", cost).retention(KEPT));
    assertThat(h.dispatch()).extracting(JobSnapshot::id).contains(job.id());
    return job;
  }

  private void succeed(JobId id, Settlement... settlements) {
    h.turn((engine, nowMs) -> {
      engine.complete(id, List.of(settlements), nowMs);
      return null;
    });
  }

  private BudgetState state(String key) {
    return h.engine().budgetStates().get(key);
  }

  private void step(long ms) {
    h.advanceMs(ms);
    h.runDue();
  }

  @Test
  void aCostAboveWhatThePoolHoldsBecomesDebtThatTheDripPaysBeforeAnyToken() {
    llmBudget();
    JobSnapshot done = dispatchedJob(2);
    JobSnapshot next = h.enqueue(job("q").budget("llm", 1));
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(next.id());
    long settledAt = h.nowMs();

    // Charged 2, really 19: 17 more, of which the pool holds 7.
    succeed(done.id(), new Settlement("llm", 19));
    assertThat(state("llm").tokensAt(settledAt)).isZero();
    assertThat(state("llm").debtAt(settledAt)).isEqualTo(10);
    assertThat(h.get(done.id()).budgets()).containsExactly(new Binding("llm", 2, 19L));

    JobSnapshot waiting = h.enqueue(job("q").budget("llm", 1));
    step(9_999);
    assertThat(state("llm").debtAt(h.nowMs())).isOne();
    step(1);
    assertThat(state("llm").debtAt(h.nowMs())).isZero();
    assertThat(h.dispatch()).isEmpty();
    step(999);
    assertThat(state("llm").tokensAt(h.nowMs())).isZero();
    assertThat(h.dispatch()).isEmpty();
    step(1);
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(waiting.id());
  }

  @Test
  void theWaitOfAJobBehindDebtCountsTheDebtExactly() {
    llmBudget();
    JobSnapshot done = dispatchedJob(10);
    step(500);
    succeed(done.id(), new Settlement("llm", 14));
    JobSnapshot waiting = h.enqueue(job("q").budget("llm", 3));
    long settledAt = h.nowMs();

    // Half a token had accrued; 4 owed and 3 to pay take 6.5 s more.
    JobWait wait = h.turn((engine, nowMs) -> engine.explainWait(waiting.id(), nowMs));
    assertThat(wait.budgets()).containsExactly(
        new BudgetWait("llm", 3, true, JobWait.Reason.DEBT, 0, 0, 0, settledAt + 6_500));
    assertThat(wait.estimatedDispatchAtMs()).isEqualTo(settledAt + 6_500);
    assertThat(state("llm").nextTokenAtMs(settledAt)).isEqualTo(settledAt + 4_500);
    assertThat(state("llm").fullAtMs(settledAt)).isEqualTo(settledAt + 13_500);

    step(6_499);
    assertThat(h.dispatch()).isEmpty();
    step(1);
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(waiting.id());
  }

  @Test
  void aRefundPaysTheDebtFirstAndNeverFillsAboveTheCapacity() {
    llmBudget();
    JobSnapshot heavy = dispatchedJob(5);
    JobSnapshot light = dispatchedJob(5);

    succeed(heavy.id(), new Settlement("llm", 12));
    assertThat(state("llm").debtAt(h.nowMs())).isEqualTo(7);
    succeed(light.id(), new Settlement("llm", 0));
    assertThat(state("llm").debtAt(h.nowMs())).isEqualTo(2);
    assertThat(state("llm").tokensAt(h.nowMs())).isZero();

    step(6_000);
    JobSnapshot third = dispatchedJob(4);
    step(10_000);
    assertThat(state("llm").tokensAt(h.nowMs())).isEqualTo(10);
    succeed(third.id(), new Settlement("llm", 1));
    assertThat(state("llm").tokensAt(h.nowMs())).isEqualTo(10);
    assertThat(state("llm").debtAt(h.nowMs())).isZero();
  }

  @Test
  void aFailureSettlesTooAndTheNextDispatchForgetsTheSettledCost() {
    llmBudget();
    JobSnapshot job = dispatchedJob(2);

    JobSnapshot failed = h.turn((engine, nowMs) -> engine.fail(job.id(), failure("rate limited"),
        List.of(new Settlement("llm", 5)), nowMs));
    assertThat(failed.status()).isEqualTo(JobStatus.SCHEDULED);
    assertThat(failed.budgets()).containsExactly(new Binding("llm", 2, 5L));
    assertThat(state("llm").tokensAt(h.nowMs())).isEqualTo(5);
    List<Mutation.PutJob> writes = h.mutations(Mutation.PutJob.class);
    assertThat(writes.get(writes.size() - 1).job().budgets())
        .containsExactly(new Binding("llm", 2, 5L));

    step(failed.readyAtMs() - h.nowMs());
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(job.id());
    assertThat(h.get(job.id()).budgets()).containsExactly(new Binding("llm", 2));
  }

  @Test
  void aConcurrencyBudgetShowsTheSettledCostAndReleasesItsHeldCostAsUsual() {
    h.budget("pool", whileInFlight(2));
    h.openWorker("q", 10);
    JobSnapshot job = h.enqueue(job("q").budget("pool", 2).retention(KEPT));
    h.dispatch();

    succeed(job.id(), new Settlement("pool", 900));
    assertThat(h.tokens("pool")).isEqualTo(2);
    assertThat(h.debt("pool")).isZero();
    assertThat(h.get(job.id()).budgets()).containsExactly(new Binding("pool", 2, 900L));
  }

  @Test
  void bulkSettlementsApplyToTheJobsTheyName() {
    llmBudget();
    JobSnapshot first = dispatchedJob(3);
    JobSnapshot second = dispatchedJob(3);

    List<String> notFound = h.turn((engine, nowMs) -> engine.completeAll(
        AckedIds.of(List.of(first.id().toString(), second.id().toString())),
        List.of(new JobSettlement(second.id().toString(), List.of(new Settlement("llm", 9)))),
        nowMs));
    assertThat(notFound).isEmpty();
    assertThat(h.get(first.id()).budgets()).containsExactly(new Binding("llm", 3));
    assertThat(h.get(second.id()).budgets()).containsExactly(new Binding("llm", 3, 9L));
    assertThat(state("llm").tokensAt(h.nowMs())).isZero();
    assertThat(state("llm").debtAt(h.nowMs())).isEqualTo(2);
  }

  @Test
  void aBulkRequestWithOneRefusedSettlementAcknowledgesNothing() {
    llmBudget();
    JobSnapshot first = dispatchedJob(3);
    JobSnapshot second = dispatchedJob(3);
    String firstId = first.id().toString();
    String secondId = second.id().toString();

    assertRefusedBulk(List.of(firstId, secondId), List.of(
        new JobSettlement(firstId, List.of(new Settlement("llm", 9))),
        new JobSettlement(secondId, List.of(new Settlement("other", 1)))),
        "settlements[1]: job is not bound to budget other");
    assertRefusedBulk(List.of(firstId), List.of(
        new JobSettlement(secondId, List.of(new Settlement("llm", 1)))),
        "settlements[0]: job " + secondId + " is not in ids");
    assertRefusedBulk(List.of(firstId), List.of(
        new JobSettlement(firstId, List.of(new Settlement("llm", 1))),
        new JobSettlement(firstId, List.of(new Settlement("llm", 2)))),
        "settlements[1]: job " + firstId + " is settled more than once");
  }

  private void assertRefusedBulk(List<String> ids, List<JobSettlement> settlements,
      String message) {
    long tokens = state("llm").tokensAt(h.nowMs());
    assertThatThrownBy(() -> h.turn((engine, nowMs) -> engine.completeAll(AckedIds.of(ids),
        settlements, nowMs)))
        .isInstanceOf(SluiceException.Unprocessable.class)
        .hasMessage(message);
    assertThat(h.lastTurn()).isEmpty();
    for (String id : ids) {
      assertThat(h.get(JobId.parseOrNull(id)).status()).isEqualTo(JobStatus.IN_FLIGHT);
    }
    assertThat(state("llm").tokensAt(h.nowMs())).isEqualTo(tokens);
  }

  @Test
  void aRefusedSettlementChangesNothing() {
    llmBudget();
    h.budget("pool", whileInFlight(1));
    JobSnapshot job = h.enqueue(job("q").budget("llm", 2).budget("pool").retention(KEPT));
    h.dispatch();

    assertRefused(job.id(), "job is not bound to budget other",
        new Settlement("llm", 4), new Settlement("other", 1));
    assertRefused(job.id(), "budget llm is not partitioned", new Settlement("llm", 4, "acct"));
    assertRefused(job.id(), "budget 'llm' named more than once",
        new Settlement("llm", 4), new Settlement("llm", 5));
    assertRefused(job.id(), "settled cost must not exceed 1000000",
        new Settlement("pool", 1_000_001));

    succeed(job.id(), new Settlement("llm", 1_000_000));
    assertThat(state("llm").debtAt(h.nowMs())).isEqualTo(1_000_000 - 10);
  }

  private void assertRefused(JobId id, String message, Settlement... settlements) {
    assertThatThrownBy(() -> succeed(id, settlements))
        .isInstanceOf(SluiceException.Unprocessable.class)
        .hasMessage(message);
    assertThat(h.lastTurn()).isEmpty();
    assertThat(h.get(id).status()).isEqualTo(JobStatus.IN_FLIGHT);
    assertThat(h.get(id).budgets()).extracting(Binding::settledCost).containsOnlyNulls();
    assertThat(state("llm").tokensAt(h.nowMs())).isEqualTo(8);
    assertThat(h.tokens("pool")).isZero();
  }

  @Test
  void aJobNotInFlightIsNotFoundBeforeItsSettlementsAreLookedAt() {
    llmBudget();
    JobSnapshot job = h.enqueue(job("other-queue").budget("llm"));

    assertThatThrownBy(() -> succeed(job.id(), new Settlement("missing", 1)))
        .isInstanceOf(SluiceException.NotFound.class);
  }
}

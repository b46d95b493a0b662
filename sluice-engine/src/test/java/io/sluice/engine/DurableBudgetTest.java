package io.sluice.engine;

import static io.sluice.engine.EngineHarness.job;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.PolicyPatch;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.store.Mutation;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Durable token state (X4) on a manual clock: a durable rate bucket resumes after a restart from
 * what it had spent and refills for the time that passed, to the millisecond; its state is written
 * once per turn; a job charged to it reaches its worker only once that state is committed; a
 * budget that is not durable restarts full (BUDGETS.md §10).
 */
class DurableBudgetTest {
  /** 10 per minute: one token every 6 s once drained. */
  private static final long TOKEN_MS = 6_000;

  private final MemoryJobStore store = new MemoryJobStore();
  private EngineHarness h = EngineHarness.writingTo(store);

  private static PolicySpec tenPerMinute(boolean durable) {
    return new PolicySpec(10, "time_based", 60_000L, null, durable);
  }

  private void enqueue(int count, String queue, String budget) {
    for (int i = 0; i < count; i++) {
      h.enqueue(job(queue).budget(budget));
    }
  }

  private Map<String, BucketState> storedStates() {
    Map<String, BucketState> states = new HashMap<>();
    store.scanBucketStates(states::put);
    return states;
  }

  @Test
  void aDrainedDurableBucketRefillsAcrossARestartExactlyAsIfTheServerHadNeverStopped() {
    h.budget("durable", tenPerMinute(true));
    h.openWorker("q", 100);
    enqueue(20, "q", "durable");
    assertThat(h.dispatch()).hasSize(10);

    h.advanceMs(TOKEN_MS - 1);
    h = h.restartFromStore();
    h.openWorker("q", 100);
    assertThat(h.dispatch()).isEmpty();
    h.advanceMs(1);
    assertThat(h.dispatch()).hasSize(1);
    h.advanceMs(TOKEN_MS - 1);
    assertThat(h.dispatch()).isEmpty();
    h.advanceMs(1);
    assertThat(h.dispatch()).hasSize(1);
  }

  @Test
  void timeSpentDownAcrossTheRestartCountsTowardTheRefill() {
    h.budget("durable", tenPerMinute(true));
    h.openWorker("q", 100);
    enqueue(20, "q", "durable");
    assertThat(h.dispatch()).hasSize(10);

    h.advanceMs(5 * TOKEN_MS + 1_000);
    h = h.restartFromStore();
    h.openWorker("q", 100);
    assertThat(h.dispatch()).hasSize(5);
    h.advanceMs(TOKEN_MS - 1_001);
    assertThat(h.dispatch()).isEmpty();
    h.advanceMs(1);
    assertThat(h.dispatch()).hasSize(1);
  }

  /**
   * What the property test's first restart model got wrong (it made the budget plain): a PATCH
   * of the period that does not name {@code durable} leaves it durable, and K restarts at 0 under
   * the new period (§7), as stored in the same turn.
   */
  @Test
  void aPatchOfThePeriodThatLeavesDurableOutKeepsTheStateAcrossARestart() {
    h.budget("durable", tenPerMinute(true));
    h.openWorker("q", 100);
    enqueue(20, "q", "durable");
    assertThat(h.dispatch()).hasSize(10);
    h.advanceMs(TOKEN_MS / 2);

    h.patchBudget("durable", new PolicyPatch(null, null, 120_000L, null, false));
    assertThat(storedStates().get("durable"))
        .isEqualTo(new BucketState(0, 0, 0, h.nowMs()));
    h = h.restartFromStore();
    h.openWorker("q", 100);
    assertThat(h.dispatch()).isEmpty();
    h.advanceMs(2 * TOKEN_MS - 1);
    assertThat(h.dispatch()).isEmpty();
    h.advanceMs(1);
    assertThat(h.dispatch()).hasSize(1);
  }

  @Test
  void aBudgetThatIsNotDurableRestartsFull() {
    h.budget("plain", tenPerMinute(false));
    h.openWorker("q", 100);
    enqueue(20, "q", "plain");
    assertThat(h.dispatch()).hasSize(10);
    assertThat(storedStates()).isEmpty();

    h.advanceMs(1);
    h = h.restartFromStore();
    h.openWorker("q", 100);
    assertThat(h.dispatch()).hasSize(10);
  }

  @Test
  void theStateIsWrittenOncePerTurnHoweverManyJobsItPaidFor() {
    h.budget("durable", tenPerMinute(true));
    h.openWorker("q", 100);
    enqueue(10, "q", "durable");

    assertThat(h.dispatch()).hasSize(10);
    assertThat(h.lastTurn()).containsExactly(
        new Mutation.PutBucketState("durable", new BucketState(0, 0, 0, h.nowMs())));
  }

  @Test
  void aJobChargedToADurableBudgetIsNotDeliveredWhenItsStateFailsToCommit() {
    h.budget("durable", tenPerMinute(true));
    h.budget("plain", tenPerMinute(false));
    EngineHarness.Worker durableWorker = h.openWorker("d", 100);
    EngineHarness.Worker plainWorker = h.openWorker("p", 100);
    enqueue(3, "d", "durable");
    enqueue(3, "p", "plain");

    store.failNextCommit(new IllegalStateException("disk full"));
    assertThat(h.dispatch()).extracting(JobSnapshot::queue).containsOnly("p").hasSize(3);
    assertThat(durableWorker.received()).isEmpty();
    assertThat(h.engine().inFlightCount()).isEqualTo(3);

    // The rollback left the durable jobs ready and the bucket as stored: full.
    assertThat(h.dispatch()).extracting(JobSnapshot::queue).containsExactly("d", "d", "d");
    assertThat(durableWorker.received()).hasSize(3);
    assertThat(plainWorker.received()).hasSize(3);
    assertThat(storedStates().get("durable").tokens()).isEqualTo(7);
  }

  @Test
  void turningDurableOffDeletesTheStoredStateAndTurningItOnWritesIt() {
    h.budget("rate", tenPerMinute(true));
    assertThat(storedStates()).containsOnlyKeys("rate");

    h.patchBudget("rate", new PolicyPatch(null, null, null, null, false, false));
    assertThat(h.lastTurn()).contains(new Mutation.DeleteBucketState("rate"));
    assertThat(storedStates()).isEmpty();

    h.openWorker("q", 100);
    enqueue(4, "q", "rate");
    assertThat(h.dispatch()).hasSize(4);
    assertThat(storedStates()).isEmpty();

    h.patchBudget("rate", new PolicyPatch(null, null, null, null, false, true));
    assertThat(storedStates().get("rate").tokens()).isEqualTo(6);
  }

  @Test
  void aDurableConcurrencyBudgetStoresNoTokenState() {
    h.budget("pool", new PolicySpec(2, "while_in_flight", null, null, true));
    h.openWorker("q", 100);
    enqueue(3, "q", "pool");

    assertThat(h.dispatch()).hasSize(2);
    assertThat(h.mutations(Mutation.PutBucketState.class)).isEmpty();
    assertThat(h.budgets().get("pool").policy().durable()).isTrue();
  }

  @Test
  void deletingADurableBudgetDeletesItsState() {
    h.budget("rate", tenPerMinute(true));
    h.deleteBudget("rate");

    assertThat(storedStates()).isEmpty();
  }
}

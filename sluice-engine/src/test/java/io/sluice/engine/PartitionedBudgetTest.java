package io.sluice.engine;

import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.partitioned;
import static io.sluice.engine.EngineHarness.timeBased;
import static io.sluice.engine.EngineHarness.whileInFlight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.JobWait.BudgetWait;
import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.budget.PolicyPatch;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.budget.Settlement;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.Throttle;
import io.sluice.engine.job.Binding;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.MemoryJobStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Partitioned budgets (X3) on a manual clock: each partition value is its own pool under one
 * policy, made full on first use and forgotten once idle; strict FIFO holds per partition;
 * payment is all or nothing across partitions and plain budgets; guards count every partition.
 */
class PartitionedBudgetTest {
  private final EngineHarness h = EngineHarness.create();

  private List<String> dispatchedIds() {
    return h.dispatch().stream().map(job -> job.id().toString()).toList();
  }

  private static String id(JobSnapshot job) {
    return job.id().toString();
  }

  private void step(long ms) {
    h.advanceMs(ms);
    h.runDue();
  }

  private BudgetState state(String key) {
    return h.engine().budgetStates().get(key);
  }

  private BudgetState partitionState(String key, String partition) {
    return h.turn((engine, nowMs) -> engine.budgetAdmin().partition(key, partition, nowMs));
  }

  @Nested
  class IndependentPools {
    @Test
    void eachPartitionHoldsItsOwnConcurrencySlots() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "acct_a"));
      JobSnapshot a2 = h.enqueue(job("q").partition("per-account", "acct_a"));
      JobSnapshot b1 = h.enqueue(job("q").partition("per-account", "acct_b"));

      // a2 waits behind a1 in acct_a; b1, behind a2 in the queue, has a pool of its own.
      assertThat(dispatchedIds()).containsExactly(id(a1), id(b1));
      assertThat(h.dispatch()).isEmpty();
      h.ack(a1.id());
      assertThat(dispatchedIds()).containsExactly(id(a2));
    }

    @Test
    void eachPartitionDripsOnItsOwnAndANewOneStartsFull() {
      h.budget("per-account", partitioned(timeBased(1, Duration.ofSeconds(1))));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "acct_a"));
      JobSnapshot a2 = h.enqueue(job("q").partition("per-account", "acct_a"));
      assertThat(dispatchedIds()).containsExactly(id(a1));

      step(400);
      JobSnapshot b1 = h.enqueue(job("q").partition("per-account", "acct_b"));
      assertThat(dispatchedIds()).containsExactly(id(b1));
      step(599);
      assertThat(h.dispatch()).isEmpty();
      step(1);
      assertThat(dispatchedIds()).containsExactly(id(a2));
    }

    @Test
    void bindingsEchoTheirPartition() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      JobSnapshot job = h.enqueue(job("q").partition("per-account", "acct_a", 1));

      assertThat(h.get(job.id()).budgets())
          .containsExactly(new Binding("per-account", "acct_a", 1));
    }
  }

  @Nested
  class AllOrNothing {
    @Test
    void aPerAccountLimitUnderAGlobalOne() {
      h.budget("per-account", partitioned(timeBased(2, Duration.ofSeconds(1))));
      h.budget("global", timeBased(3, Duration.ofSeconds(1)));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a").budget("global"));
      JobSnapshot a2 = h.enqueue(job("q").partition("per-account", "a").budget("global"));
      JobSnapshot a3 = h.enqueue(job("q").partition("per-account", "a").budget("global"));
      JobSnapshot b1 = h.enqueue(job("q").partition("per-account", "b").budget("global"));
      JobSnapshot b2 = h.enqueue(job("q").partition("per-account", "b").budget("global"));

      // Account a may have two per second; the global three per second then lets b have one.
      assertThat(dispatchedIds()).containsExactly(id(a1), id(a2), id(b1));
      assertThat(state("global").tokensAt(h.nowMs())).isZero();
      assertThat(partitionState("per-account", "b").tokensAt(h.nowMs())).isEqualTo(1);

      // A global token every 333⅓ ms: b2 (its account has a token) goes first, then a3 once
      // account a has one again, at 500 ms.
      step(333);
      assertThat(h.dispatch()).isEmpty();
      step(1);
      assertThat(dispatchedIds()).containsExactly(id(b2));
      step(165);
      assertThat(h.dispatch()).isEmpty();
      step(1);
      assertThat(h.dispatch()).isEmpty(); // a's token is here; the global one comes at 666⅔
      step(166);
      assertThat(h.dispatch()).isEmpty();
      step(1);
      assertThat(dispatchedIds()).containsExactly(id(a3));
    }

    @Test
    void aPartitionThatCannotPayTakesNothingFromTheGlobalBudget() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      h.budget("global", whileInFlight(5));
      h.openWorker("q", 10);
      h.enqueue(job("q").partition("per-account", "a").budget("global"));
      h.enqueue(job("q").partition("per-account", "a").budget("global"));

      assertThat(h.dispatch()).hasSize(1);
      assertThat(state("global").inFlightJobs()).isEqualTo(1);
      assertThat(h.tokens("global")).isEqualTo(4);
    }
  }

  @Nested
  class Forgetting {
    @Test
    void anEmptyConcurrencyPartitionIsForgottenAtTheNextStep() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a"));
      h.enqueue(job("q").partition("per-account", "b"));
      assertThat(h.dispatch()).hasSize(2);
      assertThat(state("per-account").partitions()).isEqualTo(2);

      h.ack(a1.id());
      h.runDue();
      assertThat(state("per-account").partitions()).isEqualTo(1);
      List<BudgetState> held = h.turn((engine, nowMs) ->
          engine.budgetAdmin().partitions("per-account", null, false, 10));
      assertThat(held).extracting(BudgetState::partition).containsExactly("b");
    }

    @Test
    void aSpentRatePartitionIsHeldUntilItIsFullAgain() {
      h.budget("per-account", partitioned(timeBased(2, Duration.ofSeconds(1))));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a"));
      assertThat(h.dispatch()).hasSize(1);
      h.ack(a1.id());

      step(499);
      assertThat(state("per-account").partitions()).isEqualTo(1);
      assertThat(partitionState("per-account", "a").tokensAt(h.nowMs())).isEqualTo(1);
      step(1);
      assertThat(state("per-account").partitions()).isZero();
      // Forgotten, it reads as a fresh, full pool.
      assertThat(partitionState("per-account", "a").tokensAt(h.nowMs())).isEqualTo(2);
    }

    @Test
    void aPartitionLeftOwingDebtIsForgottenOnceTheDripHasPaidItAndFilledIt() {
      h.budget("per-account", partitioned(timeBased(10, Duration.ofSeconds(10))));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a"));
      assertThat(h.dispatch()).hasSize(1);
      // It really cost 20: the 9 tokens left pay part of it, 10 are owed. A token a second.
      h.turn((engine, nowMs) -> {
        engine.complete(a1.id(), List.of(new Settlement("per-account", 20, "a")), nowMs);
        return null;
      });

      assertThat(h.engine().nextDeadlineMs()).isEqualTo(h.nowMs() + 20_000);
      step(19_999);
      assertThat(state("per-account").partitions()).isEqualTo(1);
      step(1);
      assertThat(state("per-account").partitions()).isZero();
    }

    @Test
    void theEngineIsWokenWhenAQuietPartitionMayBeForgotten() {
      h.budget("per-account", partitioned(timeBased(2, Duration.ofSeconds(1))));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a"));
      assertThat(h.dispatch()).hasSize(1);
      h.ack(a1.id());

      assertThat(h.engine().nextDeadlineMs()).isEqualTo(h.nowMs() + 500);
    }

    @Test
    void aForgottenPartitionComesBackFull() {
      h.budget("per-account", partitioned(whileInFlight(2)));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a"));
      assertThat(h.dispatch()).hasSize(1);
      h.ack(a1.id());
      h.runDue();
      assertThat(state("per-account").partitions()).isZero();

      h.enqueue(job("q").partition("per-account", "a"));
      h.enqueue(job("q").partition("per-account", "a"));
      assertThat(h.dispatch()).hasSize(2);
      assertThat(state("per-account").partitions()).isEqualTo(1);
    }
  }

  @Nested
  class State {
    @Test
    void theBudgetAsAWholeSumsItsPartitionsAndHasNoTokens() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      h.openWorker("q", 10);
      h.enqueue(job("q").partition("per-account", "a"));
      h.enqueue(job("q").partition("per-account", "a"));
      h.enqueue(job("q").partition("per-account", "b", 1));
      assertThat(h.dispatch()).hasSize(2);

      BudgetState whole = state("per-account");
      assertThat(whole.tokensAt(h.nowMs())).isNull();
      assertThat(whole.debtAt(h.nowMs())).isNull();
      assertThat(whole.nextTokenAtMs(h.nowMs())).isNull();
      assertThat(whole.inFlightJobs()).isEqualTo(2);
      assertThat(whole.waitingJobs()).isEqualTo(1);
      assertThat(whole.dispatched()).isEqualTo(2);
      assertThat(whole.partitions()).isEqualTo(2);
      BudgetState a = partitionState("per-account", "a");
      assertThat(a.tokensAt(h.nowMs())).isZero();
      assertThat(a.inFlightJobs()).isEqualTo(1);
      assertThat(a.waitingJobs()).isEqualTo(1);
    }

    /**
     * Found by the budget invariant properties: the deleted budget's spent partition was
     * forgotten once full, and publishing that stale budget withdrew the new one's state.
     */
    @Test
    void aBudgetMadeAgainUnderADeletedOnesKeyStaysPublishedWhenAPartitionOfTheOldOneIsForgotten() {
      h.budget("per-account", partitioned(timeBased(1, Duration.ofMillis(1))));
      h.openWorker("q", 10);
      JobSnapshot a = h.enqueue(job("q").partition("per-account", "a"));
      assertThat(h.dispatch()).hasSize(1);
      h.ack(a.id());
      h.deleteBudget("per-account");
      h.budget("per-account", partitioned(whileInFlight(1)));

      step(1);
      assertThat(state("per-account")).isNotNull();
      assertThat(state("per-account").view().policy().allocation()).isEqualTo(1);
    }

    @Test
    void partitionsAreListedByValueAPageAtATime() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      for (String account : List.of("c", "a", "d", "b")) {
        h.enqueue(job("q").partition("per-account", account));
      }

      List<BudgetState> first = h.turn((engine, nowMs) ->
          engine.budgetAdmin().partitions("per-account", null, false, 3));
      List<BudgetState> rest = h.turn((engine, nowMs) ->
          engine.budgetAdmin().partitions("per-account", "c", false, 3));
      List<BudgetState> backwards = h.turn((engine, nowMs) ->
          engine.budgetAdmin().partitions("per-account", "c", true, 3));

      assertThat(first).extracting(BudgetState::partition).containsExactly("a", "b", "c");
      assertThat(rest).extracting(BudgetState::partition).containsExactly("d");
      assertThat(backwards).extracting(BudgetState::partition).containsExactly("b", "a");
    }

    @Test
    void theBusiestPartitionsAreThoseWithTheMostWaitingJobs() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      for (String account : List.of("c", "a", "c", "b", "c", "b", "d")) {
        h.enqueue(job("q").partition("per-account", account));
      }

      List<BudgetState> busiest = h.turn((engine, nowMs) ->
          engine.budgetAdmin().busiestPartitions("per-account", 3));

      assertThat(busiest).extracting(BudgetState::partition).containsExactly("c", "b", "a");
      assertThat(busiest).extracting(BudgetState::waitingJobs).containsExactly(3, 2, 1);
    }

    @Test
    void whyAJobWaitsNamesItsPartitionAndCountsOnlyItsJobsAhead() {
      h.budget("per-account", partitioned(timeBased(1, Duration.ofSeconds(1))));
      h.openWorker("q", 10);
      h.enqueue(job("q").partition("per-account", "a"));
      h.enqueue(job("q").partition("per-account", "b"));
      h.enqueue(job("q").partition("per-account", "a"));
      JobSnapshot third = h.enqueue(job("q").partition("per-account", "a"));
      assertThat(h.dispatch()).hasSize(2);

      JobWait wait = h.turn((engine, nowMs) -> engine.explainWait(third.id(), nowMs));
      assertThat(wait.budgets()).containsExactly(new BudgetWait("per-account", "a", 1, true,
          JobWait.Reason.QUEUE, 0, 1, 1, h.nowMs() + 2_000));
    }
  }

  @Nested
  class Pauses {
    @Test
    void pausingOnePartitionHoldsOnlyItsJobs() {
      h.budget("per-account", partitioned(whileInFlight(5)));
      h.openWorker("q", 10);
      h.turn((engine, nowMs) ->
          engine.budgetAdmin().pausePartition("per-account", "a", 1_000L, null, nowMs));
      JobSnapshot a = h.enqueue(job("q").partition("per-account", "a"));
      JobSnapshot b = h.enqueue(job("q").partition("per-account", "b"));

      assertThat(dispatchedIds()).containsExactly(id(b));
      assertThat(partitionState("per-account", "a").pausedUntilMs(h.nowMs()))
          .isEqualTo(h.nowMs() + 1_000);
      step(999);
      assertThat(h.dispatch()).isEmpty();
      step(1);
      assertThat(dispatchedIds()).containsExactly(id(a));
    }

    @Test
    void resumingAPartitionEndsItsPauseAtOnce() {
      h.budget("per-account", partitioned(whileInFlight(5)));
      h.openWorker("q", 10);
      h.turn((engine, nowMs) ->
          engine.budgetAdmin().pausePartition("per-account", "a", 60_000L, null, nowMs));
      JobSnapshot a = h.enqueue(job("q").partition("per-account", "a"));
      assertThat(h.dispatch()).isEmpty();

      h.turn((engine, nowMs) -> engine.budgetAdmin().resumePartition("per-account", "a", nowMs));
      assertThat(dispatchedIds()).containsExactly(id(a));
    }

    @Test
    void pausingTheBudgetPausesEveryPartitionIncludingNewOnes() {
      h.budget("per-account", partitioned(whileInFlight(5)));
      h.openWorker("q", 10);
      JobSnapshot a = h.enqueue(job("q").partition("per-account", "a"));
      h.turn((engine, nowMs) -> engine.budgetAdmin().pause("per-account", 1_000L, null, nowMs));
      JobSnapshot b = h.enqueue(job("q").partition("per-account", "b"));

      assertThat(h.dispatch()).isEmpty();
      assertThat(state("per-account").pausedUntilMs(h.nowMs())).isEqualTo(h.nowMs() + 1_000);
      step(1_000);
      assertThat(dispatchedIds()).containsExactly(id(a), id(b));
    }

    @Test
    void resumingAPartitionDoesNotLiftAPauseOfTheWholeBudget() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      h.openWorker("q", 10);
      h.turn((engine, nowMs) -> engine.budgetAdmin().pause("per-account", 1_000L, null, nowMs));
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a"));

      h.turn((engine, nowMs) -> engine.budgetAdmin().resumePartition("per-account", "a", nowMs));
      assertThat(h.dispatch()).isEmpty();
      assertThat(partitionState("per-account", "a").pausedUntilMs(h.nowMs()))
          .isEqualTo(h.nowMs() + 1_000);
      step(1_000);
      assertThat(dispatchedIds()).containsExactly(id(a1));
    }

    @Test
    void aPausedPartitionIsHeldUntilThePauseEnds() {
      h.budget("per-account", partitioned(whileInFlight(5)));
      h.turn((engine, nowMs) ->
          engine.budgetAdmin().pausePartition("per-account", "a", 1_000L, null, nowMs));
      assertThat(state("per-account").partitions()).isEqualTo(1);
      step(999);
      assertThat(state("per-account").partitions()).isEqualTo(1);
      step(1);
      assertThat(state("per-account").partitions()).isZero();
    }
  }

  @Nested
  class Rules {
    @Test
    void aBindingToAPartitionedBudgetNeedsAPartition() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      assertThatThrownBy(() -> h.enqueue(job("q").budget("per-account")))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget per-account is partitioned: binding requires a partition");
    }

    @Test
    void aPlainBudgetTakesNoPartition() {
      h.budget("global", whileInFlight(1));
      assertThatThrownBy(() -> h.enqueue(job("q").partition("global", "a")))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget global is not partitioned");
    }

    @Test
    void aPartitionValueFollowsTheNameRulesAndTakesAtMost256Bytes() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      assertThatThrownBy(() -> h.enqueue(job("q").partition("per-account", "a,b")))
          .hasMessage("budget partition must not contain ','");
      assertThatThrownBy(() -> h.enqueue(job("q").partition("per-account", "")))
          .hasMessage("budget partition must not be empty");
      assertThatThrownBy(() -> h.enqueue(job("q").partition("per-account", "é".repeat(129))))
          .hasMessage("budget partition must be at most 256 bytes");
      JobSnapshot longest = h.enqueue(job("q").partition("per-account", "é".repeat(128)));
      assertThat(longest.budgets().get(0).partition()).hasSize(128);
    }

    @Test
    void partitionedIsFixedAtCreation() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      h.budget("global", whileInFlight(1));

      assertThatThrownBy(() -> h.putBudget("per-account", whileInFlight(2)))
          .hasMessage("budget partitioned cannot be changed");
      assertThatThrownBy(() -> h.putBudget("global", partitioned(whileInFlight(2))))
          .hasMessage("budget partitioned cannot be changed");
      assertThatThrownBy(() -> h.patchBudget("global",
          new PolicyPatch(null, null, null, null, false, null, true)))
          .hasMessage("budget partitioned cannot be changed");
      assertThat(h.patchBudget("per-account",
          new PolicyPatch(3L, null, null, null, false, null, true)).partitioned()).isTrue();
      assertThat(h.budgets().get("per-account").policy().allocation()).isEqualTo(3);
    }

    @Test
    void createWithMakesAPartitionedBudget() {
      PolicySpec policy = partitioned(whileInFlight(1));
      assertThatThrownBy(() -> h.enqueue(job("q").budget("per-account", null, policy)))
          .hasMessage("budget per-account is partitioned: binding requires a partition");
      assertThat(h.budgets().list()).isEmpty();

      h.enqueue(job("q").partition("per-account", "a", policy));
      assertThat(h.budgets().get("per-account").partitioned()).isTrue();
    }

    @Test
    void partitionRoutesRefuseAPlainBudget() {
      h.budget("global", whileInFlight(1));
      assertThatThrownBy(() -> h.turn((engine, nowMs) ->
          engine.budgetAdmin().partition("global", "a", nowMs)))
          .hasMessage("budget global is not partitioned");
    }

    @Test
    void theShrinkGuardCountsEveryPartition() {
      h.budget("per-account", partitioned(whileInFlight(3)));
      h.enqueue(job("q").partition("per-account", "a", 1));
      h.enqueue(job("q").partition("per-account", "b", 3));

      assertThatThrownBy(() -> h.patchAllocation("per-account", 2))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessageContaining("2 unfinished jobs draw up to 3");
      assertThatThrownBy(() -> h.deleteBudget("per-account"))
          .isInstanceOf(SluiceException.Conflict.class)
          .hasMessageContaining("referenced by 2 unfinished jobs");
    }
  }

  @Nested
  class ThrottlesAndSettlements {
    private FailureReport throttledFor(String partition, long retryAfterMs) {
      return new FailureReport("429", null, null, null, false, 0.0,
          new Throttle("per-account", partition, retryAfterMs));
    }

    @Test
    void aThrottlePausesOnlyThePartitionTheJobDrawsOn() {
      h.budget("per-account", partitioned(whileInFlight(5)));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a"));
      assertThat(h.dispatch()).hasSize(1);
      JobSnapshot a2 = h.enqueue(job("q").partition("per-account", "a"));
      JobSnapshot b1 = h.enqueue(job("q").partition("per-account", "b"));

      h.fail(a1.id(), throttledFor(null, 1_000));
      assertThat(dispatchedIds()).containsExactly(id(b1));
      assertThat(partitionState("per-account", "a").pausedUntilMs(h.nowMs()))
          .isEqualTo(h.nowMs() + 1_000);
      step(1_000);
      assertThat(dispatchedIds()).containsExactly(id(a1), id(a2));
    }

    @Test
    void aThrottleNamingAnotherPartitionIsRefused() {
      h.budget("per-account", partitioned(whileInFlight(5)));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a"));
      assertThat(h.dispatch()).hasSize(1);

      assertThatThrownBy(() -> h.fail(a1.id(), throttledFor("b", 1_000)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("job is not bound to partition b of budget per-account");
      assertThat(h.fail(a1.id(), throttledFor("a", 1_000)).status())
          .isEqualTo(JobStatus.READY);
    }

    @Test
    void aSettlementChargesTheDifferenceToTheJobsPartitionOnly() {
      h.budget("per-account", partitioned(timeBased(10, Duration.ofSeconds(10))));
      h.openWorker("q", 10);
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a"));
      h.enqueue(job("q").partition("per-account", "b"));
      assertThat(h.dispatch()).hasSize(2);

      h.turn((engine, nowMs) -> {
        engine.complete(a1.id(), List.of(new Settlement("per-account", 4, "a")), nowMs);
        return null;
      });
      assertThat(partitionState("per-account", "a").tokensAt(h.nowMs())).isEqualTo(6);
      assertThat(partitionState("per-account", "b").tokensAt(h.nowMs())).isEqualTo(9);
    }
  }

  @Nested
  class Durable {
    private final MemoryJobStore store = new MemoryJobStore();
    private EngineHarness d = EngineHarness.writingTo(store);

    /** Two per second per partition, kept across restarts: one token every 500 ms once spent. */
    private final PolicySpec durableRate =
        new PolicySpec(2, "time_based", 1_000L, null, true, true);

    private Map<String, BucketState> storedStates() {
      Map<String, BucketState> states = new TreeMap<>();
      store.scanBucketStates(states::put);
      return states;
    }

    @Test
    void eachPartitionResumesAfterARestartFromWhatItHadSpent() {
      d.budget("per-account", durableRate);
      d.openWorker("q", 100);
      for (int i = 0; i < 3; i++) {
        d.enqueue(job("q").partition("per-account", "a"));
        d.enqueue(job("q").partition("per-account", "b"));
      }
      assertThat(d.dispatch()).hasSize(4);

      d.advanceMs(499);
      d = d.restartFromStore();
      d.openWorker("q", 100);
      assertThat(d.dispatch()).isEmpty();
      d.advanceMs(1);
      assertThat(d.dispatch()).hasSize(2);
    }

    @Test
    void eachPartitionIsStoredUnderItsOwnKeyOncePerTurnAndForgottenWithIt() {
      d.budget("per-account", durableRate);
      d.openWorker("q", 100);
      JobSnapshot a = d.enqueue(job("q").partition("per-account", "a"));
      d.enqueue(job("q").partition("per-account", "b"));
      assertThat(d.dispatch()).hasSize(2);
      assertThat(storedStates()).containsOnlyKeys("per-account\0a", "per-account\0b");

      d.ack(a.id());
      d.advanceMs(500);
      d.runDue();
      assertThat(storedStates()).containsOnlyKeys("per-account\0b");
    }

    @Test
    void aResetDeletesEveryStoredTokenStatePlainOrPartitioned() {
      d.budget("per-account", durableRate);
      d.budget("plain", new PolicySpec(2, "time_based", 1_000L, null, true));
      d.openWorker("q", 100);
      d.enqueue(job("q").partition("per-account", "a"));
      d.enqueue(job("q").budget("plain"));
      assertThat(d.dispatch()).hasSize(2);
      assertThat(storedStates()).containsOnlyKeys("per-account\0a", "plain");

      d.turn((engine, nowMs) -> {
        engine.reset(nowMs);
        return null;
      });
      assertThat(storedStates()).isEmpty();
      assertThat(d.budgets().list()).isEmpty();
    }

    @Test
    void deletingTheBudgetDeletesEveryPartitionsState() {
      d.budget("per-account", durableRate);
      d.openWorker("q", 100);
      JobSnapshot a = d.enqueue(job("q").partition("per-account", "a"));
      assertThat(d.dispatch()).hasSize(1);
      d.ack(a.id());

      d.deleteBudget("per-account");
      assertThat(storedStates()).isEmpty();
    }
  }

  @Nested
  class Restart {
    @Test
    void recoveredJobsWaitInTheirPartitionsAgainWithFullPools() {
      h.budget("per-account", partitioned(whileInFlight(1)));
      JobSnapshot a1 = h.enqueue(job("q").partition("per-account", "a"));
      JobSnapshot a2 = h.enqueue(job("q").partition("per-account", "a"));
      JobSnapshot b1 = h.enqueue(job("q").partition("per-account", "b"));

      EngineHarness restarted = h.restart(List.of(a1, a2, b1));
      restarted.openWorker("q", 10);
      assertThat(restarted.dispatch()).extracting(job -> job.id().toString())
          .containsExactly(id(a1), id(b1));
      assertThat(restarted.engine().budgetStates().get("per-account").partitions()).isEqualTo(2);
    }
  }
}

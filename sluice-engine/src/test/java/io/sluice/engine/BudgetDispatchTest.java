package io.sluice.engine;

import static io.sluice.engine.EngineHarness.failure;
import static io.sluice.engine.EngineHarness.failureRetryingAt;
import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.killingFailure;
import static io.sluice.engine.EngineHarness.timeBased;
import static io.sluice.engine.EngineHarness.whileInFlight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.EngineHarness.JobSpec;
import io.sluice.engine.EngineHarness.Worker;
import io.sluice.engine.job.Binding;
import io.sluice.engine.budget.BudgetPolicy;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.PolicyPatch;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.budget.StrategyType;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.store.Mutation;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Budgets at engine level (BUDGETS.md §5–§8 and the worked examples of §12): which bound jobs
 * are dispatched, at exactly which millisecond, and what every policy change, release, restart
 * and guard does. Time is a {@link ManualClock}; a "loop step" is {@link EngineHarness#dispatch}.
 */
class BudgetDispatchTest {
  private static final Duration MINUTE = Duration.ofMinutes(1);
  private static final Duration HOUR = Duration.ofHours(1);

  private final EngineHarness h = EngineHarness.create();

  private static List<JobId> ids(List<JobSnapshot> jobs) {
    return jobs.stream().map(JobSnapshot::id).toList();
  }

  private void advanceTo(long atMs) {
    h.advanceMs(atMs - h.nowMs());
  }

  /** {@code count} jobs on queue "a", each bound to {@code key} at cost 1, in one turn. */
  private List<JobSnapshot> enqueueBound(int count, String key) {
    JobSpec[] specs = new JobSpec[count];
    for (int i = 0; i < count; i++) {
      specs[i] = job("a").budget(key);
    }
    return h.enqueue(specs);
  }

  private JobStatus status(JobSnapshot job) {
    return h.get(job.id()).status();
  }

  private void ackAll(List<JobSnapshot> jobs) {
    for (JobSnapshot job : jobs) {
      h.ack(job.id());
    }
  }

  /** Runs loop steps at each engine deadline until {@code endMs}, recording delivery times. */
  private List<Long> deliveryTimesUntil(long endMs) {
    List<Long> times = new ArrayList<>();
    while (true) {
      for (int i = h.dispatch().size(); i > 0; i--) {
        times.add(h.nowMs());
      }
      long next = h.engine().nextDeadlineMs();
      if (next > endMs) {
        return times;
      }
      advanceTo(next);
    }
  }

  // ---- concurrency limits ----------------------------------------------------------------------

  @Nested
  class WhileInFlight {
    @Test
    void runsAtMostFiveTwoSecondJobsAtOnce() { // E1
      h.budget("c5", whileInFlight(5));
      List<JobSnapshot> jobs = enqueueBound(11, "c5");
      h.openWorker("a", 20);
      long t0 = h.nowMs();

      assertThat(ids(h.dispatch())).containsExactlyElementsOf(ids(jobs.subList(0, 5)));
      advanceTo(t0 + 1_999);
      assertThat(h.dispatch()).isEmpty();
      assertThat(jobs.subList(5, 11))
          .allSatisfy(j -> assertThat(status(j)).isEqualTo(JobStatus.READY));

      advanceTo(t0 + 2_000);
      for (int i = 0; i < 5; i++) {
        h.ack(jobs.get(i).id());
        assertThat(ids(h.dispatch())).containsExactly(jobs.get(5 + i).id());
        assertThat(h.engine().inFlightCount()).isEqualTo(5);
      }
      advanceTo(t0 + 3_999);
      assertThat(h.dispatch()).isEmpty();
      assertThat(status(jobs.get(10))).isEqualTo(JobStatus.READY);

      advanceTo(t0 + 4_000);
      h.ack(jobs.get(5).id());
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(10).id());
      ackAll(jobs.subList(6, 11));
      assertThat(h.dispatch()).isEmpty();
      assertThat(h.tokens("c5")).isEqualTo(5);
    }

    @Test
    void keepsACheaperJobBehindAnUnaffordableHead() { // E7
      h.budget("x", whileInFlight(10));
      JobSnapshot running = h.enqueue(job("a").budget("x", 5));
      h.openWorker("a", 0);
      assertThat(ids(h.dispatch())).containsExactly(running.id());

      List<JobSnapshot> waiting = h.enqueue(job("a").budget("x", 6), job("a").budget("x", 1));
      assertThat(h.dispatch()).isEmpty();
      assertThat(h.tokens("x")).isEqualTo(5);

      h.ack(running.id());
      assertThat(ids(h.dispatch())).containsExactlyElementsOf(ids(waiting));
      assertThat(h.tokens("x")).isEqualTo(3);
    }

    @Test
    void settlesAtTheNarrowedSizeOnlyAfterEveryRunningJobFinished() { // E9
      h.budget("c", whileInFlight(6));
      List<JobSnapshot> jobs = enqueueBound(16, "c");
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(6);

      BudgetView patched = h.patchAllocation("c", 1);

      assertThat(patched.policy().allocation()).isEqualTo(1);
      assertThat(h.dispatch()).isEmpty();
      assertThat(h.debt("c")).isEqualTo(5);
      for (int i = 0; i < 5; i++) {
        h.ack(jobs.get(i).id());
        assertThat(h.dispatch()).as("after completion %d", i + 1).isEmpty();
        assertThat(h.debt("c")).isEqualTo(4 - i);
      }
      h.ack(jobs.get(5).id());
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(6).id());
      for (int i = 6; i < 12; i++) {
        assertThat(h.engine().inFlightCount()).isEqualTo(1);
        h.ack(jobs.get(i).id());
        assertThat(ids(h.dispatch())).containsExactly(jobs.get(i + 1).id());
      }
    }

    @Test
    void handsOutWidenedSlotsWithoutAnyCompletion() { // E10
      h.budget("c", whileInFlight(2));
      List<JobSnapshot> jobs = enqueueBound(8, "c");
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(2);

      h.patchAllocation("c", 5);

      assertThat(ids(h.dispatch())).containsExactlyElementsOf(ids(jobs.subList(2, 5)));
      assertThat(h.dispatch()).isEmpty();
      assertThat(h.engine().inFlightCount()).isEqualTo(5);
    }

    @Test
    void adjustsRatherThanResetsTheBucketWhenThePolicyIsPutAgain() {
      h.budget("c", whileInFlight(2));
      List<JobSnapshot> jobs = enqueueBound(3, "c");
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(2);
      BudgetView before = h.budgets().get("c");
      h.advanceMs(5);

      BudgetView after = h.putBudget("c", whileInFlight(2));

      assertThat(after.createdAtMs()).isEqualTo(before.createdAtMs());
      assertThat(after.updatedAtMs()).isEqualTo(h.nowMs());
      assertThat(h.tokens("c")).isZero();
      assertThat(h.dispatch()).isEmpty();
      h.ack(jobs.get(0).id());
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(2).id());
    }

    @Test
    void countsCostsNotJobs() {
      h.budget("x", whileInFlight(5));
      List<JobSnapshot> jobs = h.enqueue(job("a").budget("x", 2), job("a").budget("x", 2),
          job("a").budget("x", 2));
      h.openWorker("a", 0);

      assertThat(ids(h.dispatch())).containsExactly(jobs.get(0).id(), jobs.get(1).id());
      assertThat(h.tokens("x")).isEqualTo(1);
      h.ack(jobs.get(0).id());
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(2).id());
    }

    @Test
    void makesAMutexOfAllocationOne() {
      h.budget("mutex", whileInFlight(1));
      List<JobSnapshot> jobs = enqueueBound(3, "mutex");
      h.openWorker("a", 0);
      h.openWorker("a", 0);

      for (JobSnapshot next : jobs) {
        assertThat(ids(h.dispatch())).containsExactly(next.id());
        assertThat(h.dispatch()).isEmpty();
        h.ack(next.id());
      }
    }
  }

  // ---- rate limits -----------------------------------------------------------------------------

  @Nested
  class TimeBased {
    @Test
    void dispatchesTheBurstThenOneEveryTenSeconds() { // E2
      h.budget("r", timeBased(6, MINUTE));
      List<JobSnapshot> jobs = enqueueBound(10, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();

      assertThat(ids(h.dispatch())).containsExactlyElementsOf(ids(jobs.subList(0, 6)));
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 10_000);
      advanceTo(t0 + 2_000);
      ackAll(jobs.subList(0, 6)); // finished jobs give nothing back to a rate
      assertThat(h.dispatch()).isEmpty();

      for (int k = 1; k <= 4; k++) {
        advanceTo(t0 + 10_000L * k - 1);
        assertThat(h.dispatch()).as("just before slot %d", k).isEmpty();
        advanceTo(t0 + 10_000L * k);
        assertThat(ids(h.dispatch())).containsExactly(jobs.get(5 + k).id());
        advanceTo(t0 + 10_000L * k + 2_000);
        h.ack(jobs.get(5 + k).id());
      }
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void keepsTenSecondsBetweenDispatchesInTheSteadyState() { // E3
      h.budget("r", timeBased(6, MINUTE));
      enqueueBound(30, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(6);

      List<Long> times = deliveryTimesUntil(t0 + 200_000);
      enqueueBound(5, "r"); // more backlog arriving changes nothing
      times.addAll(deliveryTimesUntil(t0 + 240_000));

      assertThat(times).containsExactlyElementsOf(
          IntStream.rangeClosed(1, 24).mapToObj(k -> t0 + 10_000L * k).toList());
    }

    @Test
    void catchesUpExactlyWhenTheLoopRunsLate() {
      h.budget("r", timeBased(6, MINUTE));
      List<JobSnapshot> jobs = enqueueBound(12, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(6);

      advanceTo(t0 + 25_000);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(6).id(), jobs.get(7).id());
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 30_000);
      advanceTo(t0 + 29_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 30_000);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(8).id());
    }

    @Test
    void neverDispatchesTwoWithinTenSecondsWithBurstOne() { // E4
      h.budget("r", timeBased(6, MINUTE, 1));
      List<JobSnapshot> jobs = enqueueBound(4, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();

      assertThat(ids(h.dispatch())).containsExactly(jobs.get(0).id());
      for (int k = 1; k <= 3; k++) {
        advanceTo(t0 + 10_000L * k - 1);
        assertThat(h.dispatch()).isEmpty();
        advanceTo(t0 + 10_000L * k);
        assertThat(ids(h.dispatch())).containsExactly(jobs.get(k).id());
      }

      advanceTo(t0 + 3_600_000); // an idle hour banks only the burst
      List<JobSnapshot> more = enqueueBound(2, "r");
      assertThat(ids(h.dispatch())).containsExactly(more.get(0).id());
      advanceTo(h.nowMs() + 9_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(h.nowMs() + 1);
      assertThat(ids(h.dispatch())).containsExactly(more.get(1).id());
    }

    @Test
    void dripsTwentyInTheFirstMinuteAndAHundredInFive() { // E5
      h.budget("r", timeBased(100, Duration.ofMinutes(5)));
      enqueueBound(300, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(100);

      List<Long> times = deliveryTimesUntil(t0 + 300_000);

      assertThat(times).containsExactlyElementsOf(
          IntStream.rangeClosed(1, 100).mapToObj(k -> t0 + 3_000L * k).toList());
      assertThat(times.stream().filter(t -> t <= t0 + 59_999)).hasSize(19);
      assertThat(times.stream().filter(t -> t <= t0 + 60_000)).hasSize(20);
      assertThat(times.stream().filter(t -> t <= t0 + 240_000)).hasSize(80);
    }

    @Test
    void accruesTheSameInCoarseLoopStepsAsInExactOnes() {
      h.budget("r", timeBased(100, Duration.ofMinutes(5)));
      enqueueBound(200, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(100);

      int delivered = 0;
      for (long t = t0 + 7_000; t <= t0 + 63_000; t += 7_000) {
        advanceTo(t);
        delivered += h.dispatch().size();
        assertThat(delivered).as("by +%d ms", t - t0).isEqualTo((int) ((t - t0) / 3_000));
      }
    }

    @Test
    void deliversAtTheNewRateRightAfterARateIncrease() { // E11
      h.budget("r", timeBased(1, MINUTE));
      List<JobSnapshot> jobs = enqueueBound(2, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(0).id());
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 60_000);

      advanceTo(t0 + 30_000);
      h.patchAllocation("r", 120);

      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 30_250);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 30_249);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 30_250);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(1).id());
    }

    @Test
    void discardsProgressWhenThePeriodChanges() { // E12
      h.budget("r", timeBased(1, MINUTE));
      List<JobSnapshot> jobs = enqueueBound(2, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(1);

      advanceTo(t0 + 30_000);
      h.patchBudget("r", new PolicyPatch(2L, null, 1_000L, null, false));

      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 30_500);
      advanceTo(t0 + 30_499);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 30_500);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(1).id());
    }

    @Test
    void waitsLongerWhenTheRateIsLowered() {
      h.budget("r", timeBased(6, MINUTE));
      List<JobSnapshot> jobs = enqueueBound(7, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(6);

      advanceTo(t0 + 5_000); // 30 000 token·ms banked
      h.patchAllocation("r", 1); // caps at 1 token; needs 30 000 more token·ms at 1 per ms

      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 35_000);
      advanceTo(t0 + 34_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 35_000);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(6).id());
    }

    @Test
    void carriesOnlyWhatFitsWhenAConcurrencyBudgetBecomesARate() {
      h.budget("c", whileInFlight(10));
      List<JobSnapshot> jobs = enqueueBound(12, "c");
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(10);
      ackAll(jobs.subList(0, 3)); // 3 free slots
      assertThat(h.dispatch()).hasSize(2); // jobs 10 and 11 take two of them; one is left
      long t0 = h.nowMs();
      JobSnapshot last = h.enqueue(job("a").budget("c"));
      List<JobSnapshot> more = enqueueBound(2, "c");

      h.patchBudget("c", new PolicyPatch(2L, "time_based", 1_000L, null, false));

      assertThat(h.debt("c")).isZero();
      assertThat(ids(h.dispatch())).containsExactly(last.id()); // min(1, 2) carried
      ackAll(jobs.subList(3, 12)); // a rate is not credited by completions
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 499);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 500);
      assertThat(ids(h.dispatch())).containsExactly(more.get(0).id());
      advanceTo(t0 + 999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 1_000);
      assertThat(ids(h.dispatch())).containsExactly(more.get(1).id());
    }

    @Test
    void sharesOneRateBetweenStreamsOfDifferentQueues() {
      h.budget("r", timeBased(1, MINUTE));
      h.enqueue(job("a").budget("r"), job("b").budget("r"), job("a").budget("r"),
          job("b").budget("r"));
      Worker onA = h.openWorker("a", 0);
      Worker onB = h.openWorker("b", 0);
      long t0 = h.nowMs();

      assertThat(h.dispatch()).hasSize(1);
      for (int k = 1; k <= 3; k++) {
        advanceTo(t0 + 60_000L * k - 1);
        assertThat(h.dispatch()).isEmpty();
        advanceTo(t0 + 60_000L * k);
        assertThat(h.dispatch()).hasSize(1);
      }
      assertThat(onA.received()).hasSize(2);
      assertThat(onB.received()).hasSize(2);
    }

    @Test
    void keepsTheScheduleWhenTheSameRateIsPutAgain() {
      h.budget("r", timeBased(1, MINUTE));
      List<JobSnapshot> jobs = enqueueBound(2, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(1);
      advanceTo(t0 + 45_000);

      h.putBudget("r", timeBased(1, MINUTE));

      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 60_000);
      advanceTo(t0 + 59_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 60_000);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(1).id());
    }

    @Test
    void spendsAJobsWholeCostAtDispatch() {
      h.budget("r", timeBased(3, Duration.ofSeconds(3)));
      JobSnapshot drain = h.enqueue(job("a").budget("r", 3));
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(ids(h.dispatch())).containsExactly(drain.id());

      List<JobSnapshot> waiting = h.enqueue(job("a").budget("r", 3), job("a").budget("r", 1));
      advanceTo(t0 + 1_000); // one token: enough for the second job, not for the head
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 2_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 3_000);
      assertThat(ids(h.dispatch())).containsExactly(waiting.get(0).id());
      advanceTo(t0 + 3_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 4_000);
      assertThat(ids(h.dispatch())).containsExactly(waiting.get(1).id());
    }
  }

  // ---- selection -------------------------------------------------------------------------------

  @Nested
  class Selection {
    @Test
    void neverLetsAParkedJobStallOthers() { // E6
      h.budget("solo", whileInFlight(1)).budget("fast", whileInFlight(100));
      JobSnapshot a = h.enqueue(job("a").priority(0).budget("solo"));
      Worker first = h.openWorker("a", 1);
      assertThat(ids(h.dispatch())).containsExactly(a.id());

      JobSnapshot b = h.enqueue(job("a").priority(0).budget("solo"));
      JobSnapshot c = h.enqueue(job("a").priority(100));
      JobSnapshot d = h.enqueue(job("a").priority(50).budget("fast"));
      Worker second = h.openWorker("a", 0);

      assertThat(ids(h.dispatch())).containsExactly(d.id(), c.id());
      assertThat(second.receivedIds()).containsExactly(d.id(), c.id());
      assertThat(first.receivedIds()).containsExactly(a.id());
      assertThat(status(b)).isEqualTo(JobStatus.READY);

      h.ack(a.id());
      assertThat(ids(h.dispatch())).containsExactly(b.id());
    }

    @Test
    void takesNothingFromOneBudgetWhileAnotherCannotPay() { // E8
      h.budget("x", whileInFlight(10)).budget("y", whileInFlight(1));
      JobSnapshot occupant = h.enqueue(job("a").budget("y"));
      h.openWorker("a", 0);
      assertThat(ids(h.dispatch())).containsExactly(occupant.id());

      JobSnapshot j = h.enqueue(job("a").priority(10).budget("x", 10).budget("y", 1));
      assertThat(h.dispatch()).isEmpty();
      assertThat(h.tokens("x")).isEqualTo(10);

      JobSnapshot k = h.enqueue(job("a").priority(0).budget("x", 10));
      assertThat(ids(h.dispatch())).containsExactly(k.id());
      assertThat(status(j)).isEqualTo(JobStatus.READY);

      h.ack(occupant.id());
      assertThat(h.dispatch()).isEmpty(); // y can pay now, x cannot
      h.ack(k.id());
      assertThat(ids(h.dispatch())).containsExactly(j.id());
      assertThat(h.tokens("x")).isZero();
      assertThat(h.tokens("y")).isZero();
    }

    @Test
    void keepsASamePriorityJobBehindAMultiBudgetHead() { // E8, second half
      h.budget("x", whileInFlight(10)).budget("y", whileInFlight(1));
      JobSnapshot occupant = h.enqueue(job("a").budget("y"));
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(1);

      JobSnapshot j = h.enqueue(job("a").priority(10).budget("x", 10).budget("y", 1));
      JobSnapshot k = h.enqueue(job("a").priority(10).budget("x", 10));
      assertThat(h.dispatch()).isEmpty();

      h.ack(occupant.id());
      assertThat(ids(h.dispatch())).containsExactly(j.id());
      h.ack(j.id());
      assertThat(ids(h.dispatch())).containsExactly(k.id());
    }

    @Test
    void prefersAnAffordableHeadOfBetterPriorityOverAnUnboundJob() {
      h.budget("x", whileInFlight(1));
      JobSnapshot unbound = h.enqueue(job("a").priority(5));
      JobSnapshot bound = h.enqueue(job("a").priority(1).budget("x"));
      h.openWorker("a", 1);

      assertThat(ids(h.dispatch())).containsExactly(bound.id());
      h.ack(bound.id());
      assertThat(ids(h.dispatch())).containsExactly(unbound.id());
    }

    @Test
    void prefersAnUnboundJobOfBetterPriorityOverAnAffordableHead() {
      h.budget("x", whileInFlight(1));
      JobSnapshot bound = h.enqueue(job("a").priority(1).budget("x"));
      JobSnapshot unbound = h.enqueue(job("a").priority(0));
      h.openWorker("a", 1);

      assertThat(ids(h.dispatch())).containsExactly(unbound.id());
      assertThat(h.tokens("x")).isEqualTo(1);
      h.ack(unbound.id());
      assertThat(ids(h.dispatch())).containsExactly(bound.id());
    }

    @Test
    void keepsFifoAcrossBoundAndUnboundJobsOfOnePriority() {
      h.budget("x", whileInFlight(5)).budget("z", timeBased(5, MINUTE));
      List<JobSnapshot> jobs = h.enqueue(job("a").budget("x"), job("a"), job("a").budget("z"),
          job("a"), job("a").budget("x").budget("z"));
      h.openWorker("a", 0);

      assertThat(ids(h.dispatch())).containsExactlyElementsOf(ids(jobs));
    }

    @Test
    void letsUnboundJobsPassAnUnaffordableRateHead() {
      h.budget("r", timeBased(1, MINUTE));
      JobSnapshot spend = h.enqueue(job("a").priority(0).budget("r"));
      h.openWorker("a", 0);
      assertThat(ids(h.dispatch())).containsExactly(spend.id());

      JobSnapshot head = h.enqueue(job("a").priority(0).budget("r"));
      JobSnapshot unbound = h.enqueue(job("a").priority(65_535));
      assertThat(ids(h.dispatch())).containsExactly(unbound.id());
      assertThat(status(head)).isEqualTo(JobStatus.READY);
    }

    @Test
    void letsAnotherBudgetsHeadPassAnUnaffordableHead() {
      h.budget("busy", whileInFlight(1)).budget("free", timeBased(10, MINUTE));
      h.enqueue(job("a").budget("busy"));
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(1);

      JobSnapshot blocked = h.enqueue(job("a").priority(0).budget("busy"));
      List<JobSnapshot> free = h.enqueue(job("a").priority(9).budget("free"),
          job("a").priority(9).budget("free"));

      assertThat(ids(h.dispatch())).containsExactlyElementsOf(ids(free));
      assertThat(status(blocked)).isEqualTo(JobStatus.READY);
    }

    @Test
    void doesNotCountParkedJobsAgainstPrefetch() {
      h.budget("x", whileInFlight(1));
      JobSnapshot occupant = h.enqueue(job("a").budget("x"));
      Worker worker = h.openWorker("a", 2);
      assertThat(h.dispatch()).hasSize(1);
      h.enqueue(job("a").priority(0).budget("x"), job("a").priority(0).budget("x"));

      JobSnapshot unbound = h.enqueue(job("a"));

      assertThat(ids(h.dispatch())).containsExactly(unbound.id());
      assertThat(worker.receivedIds()).containsExactly(occupant.id(), unbound.id());
    }

    @Test
    void givesAWorkerOfAnotherQueueTheHeadOfItsOwnQueue() {
      h.budget("x", whileInFlight(10));
      h.enqueue(job("a").budget("x", 5));
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(1);
      JobSnapshot onA = h.enqueue(job("a").budget("x", 6));
      JobSnapshot onB = h.enqueue(job("b").budget("x", 1));

      Worker forB = h.openWorker("b", 0);

      // For a stream taking only "b", the head of x in its queue set is the cheap job.
      assertThat(ids(h.dispatch())).containsExactly(onB.id());
      assertThat(forB.receivedIds()).containsExactly(onB.id());
      assertThat(status(onA)).isEqualTo(JobStatus.READY);
    }

    @Test
    void keepsFifoPerBudgetAcrossTheQueuesOfOneWorker() {
      h.budget("x", whileInFlight(10));
      JobSnapshot running = h.enqueue(job("a").budget("x", 5));
      h.openWorker(Set.of("a", "b"), 0);
      assertThat(h.dispatch()).hasSize(1);

      JobSnapshot expensive = h.enqueue(job("a").budget("x", 6));
      JobSnapshot cheap = h.enqueue(job("b").budget("x", 1));

      assertThat(h.dispatch()).isEmpty();
      h.ack(running.id());
      assertThat(ids(h.dispatch())).containsExactly(expensive.id(), cheap.id());
    }
  }

  /**
   * §5.2: a job bound to several budgets is eligible when it heads at least one of them and all
   * can pay, so whatever makes one budget able to pay must reach such a job too.
   */
  @Nested
  class ReEvaluation {
    @Test
    void dispatchesAJobThatHeadsOneBudgetWhenTheDripOfAnotherPays() {
      h.budget("a", whileInFlight(1)).budget("r", timeBased(1, MINUTE))
          .budget("c", whileInFlight(1));
      h.openWorker("a", 0);
      h.enqueue(job("a").budget("r"));
      h.enqueue(job("a").budget("c"));
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(2);

      JobSnapshot stuck = h.enqueue(job("a").priority(0).budget("r").budget("c"));
      JobSnapshot j = h.enqueue(job("a").priority(1).budget("a").budget("r"));
      assertThat(h.dispatch()).isEmpty();

      advanceTo(t0 + 59_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 60_000);
      assertThat(ids(h.dispatch())).containsExactly(j.id());
      assertThat(status(stuck)).isEqualTo(JobStatus.READY);
    }

    @Test
    void dispatchesAJobThatHeadsOneBudgetWhenAnotherReleasesTheTokensItNeeds() {
      h.budget("a", whileInFlight(1)).budget("b", whileInFlight(2));
      List<JobSnapshot> occupants = enqueueBound(2, "b");
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(2);
      JobSnapshot y = h.enqueue(job("a").priority(0).budget("b", 2)); // head of b, needs both
      JobSnapshot j = h.enqueue(job("a").priority(1).budget("a").budget("b")); // head of a
      assertThat(h.dispatch()).isEmpty();

      h.ack(occupants.get(0).id()); // b holds 1: not enough for y, enough for j

      assertThat(ids(h.dispatch())).containsExactly(j.id());
      assertThat(status(y)).isEqualTo(JobStatus.READY);
    }

    @Test
    void dispatchesAJobThatHeadsOneBudgetWhenAnotherIsWidened() {
      h.budget("a", whileInFlight(1)).budget("b", whileInFlight(1))
          .budget("c", whileInFlight(1));
      h.openWorker("a", 0);
      h.enqueue(job("a").budget("b"), job("a").budget("c"));
      assertThat(h.dispatch()).hasSize(2);
      JobSnapshot y = h.enqueue(job("a").priority(0).budget("b").budget("c")); // waits for c
      JobSnapshot j = h.enqueue(job("a").priority(1).budget("a").budget("b")); // head of a
      assertThat(h.dispatch()).isEmpty();

      h.patchAllocation("b", 2);

      assertThat(ids(h.dispatch())).containsExactly(j.id());
      assertThat(status(y)).isEqualTo(JobStatus.READY);
    }

    @Test
    void rearmsAJobThatHeadsAnotherBudgetWhenARateItWaitsOnIsRaised() {
      h.budget("a", whileInFlight(1)).budget("r", timeBased(1, MINUTE))
          .budget("c", whileInFlight(1));
      h.openWorker("a", 0);
      h.enqueue(job("a").budget("r"), job("a").budget("c"));
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(2);
      h.enqueue(job("a").priority(0).budget("r").budget("c")); // head of r, waits for c
      JobSnapshot j = h.enqueue(job("a").priority(1).budget("a").budget("r")); // head of a
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 60_000);

      advanceTo(t0 + 30_000);
      h.patchAllocation("r", 120); // 30 000 token·ms kept; 30 000 more at 120 per ms

      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 30_250);
      advanceTo(t0 + 30_250);
      assertThat(ids(h.dispatch())).containsExactly(j.id());
    }
  }

  // ---- releasing tokens ------------------------------------------------------------------------

  @Nested
  class Release {
    private final List<JobSnapshot> jobs = new ArrayList<>();

    /** Budget x (while_in_flight 1) with one job in flight on a worker and one parked. */
    private Worker oneRunningOneParked() {
      h.budget("x", whileInFlight(1));
      jobs.addAll(enqueueBound(2, "x"));
      Worker worker = h.openWorker("a", 0);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(0).id());
      assertThat(h.tokens("x")).isZero();
      return worker;
    }

    @Test
    void releasesTokensOnAck() {
      oneRunningOneParked();

      h.ack(jobs.get(0).id());

      assertThat(h.tokens("x")).isEqualTo(1);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(1).id());
      assertThat(h.tokens("x")).isZero();
    }

    @Test
    void releasesTokensOnAckOfABatch() {
      oneRunningOneParked();

      assertThat(h.completeAll(jobs.get(0).id())).isEmpty();

      assertThat(h.tokens("x")).isEqualTo(1);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(1).id());
    }

    @Test
    void releasesTokensOnAFailureThatRetriesAndMakesTheRetryPayAgain() {
      oneRunningOneParked();
      long t0 = h.nowMs();

      h.fail(jobs.get(0).id(), failureRetryingAt(t0 + 1_000));

      assertThat(h.tokens("x")).isEqualTo(1);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(1).id());
      advanceTo(t0 + 1_000);
      assertThat(h.dispatch()).isEmpty();
      assertThat(status(jobs.get(0))).isEqualTo(JobStatus.READY);
      h.ack(jobs.get(1).id());
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(0).id());
      assertThat(h.tokens("x")).isZero();
    }

    @Test
    void releasesTokensOnAFailureThatKills() {
      oneRunningOneParked();

      JobSnapshot dead = h.fail(jobs.get(0).id(), killingFailure());

      assertThat(dead.status()).isEqualTo(JobStatus.DEAD);
      assertThat(h.tokens("x")).isEqualTo(1);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(1).id());
    }

    @Test
    void releasesTokensWhenTheWorkerDisconnectsAndChargesTheRedelivery() {
      Worker worker = oneRunningOneParked();

      h.close(worker);

      assertThat(h.tokens("x")).isEqualTo(1);
      assertThat(status(jobs.get(0))).isEqualTo(JobStatus.READY);
      Worker next = h.openWorker("a", 0);
      assertThat(ids(h.dispatch())).containsExactly(jobs.get(0).id());
      assertThat(next.receivedIds()).containsExactly(jobs.get(0).id());
      assertThat(h.tokens("x")).isZero();
    }

    @Test
    void releasesEachJobOnceWhenAWorkerHoldingSeveralDisconnects() {
      h.budget("x", whileInFlight(4));
      List<JobSnapshot> all = enqueueBound(6, "x");
      Worker worker = h.openWorker("a", 3);
      assertThat(h.dispatch()).hasSize(3);
      h.openWorker("a", 0);
      assertThat(ids(h.dispatch())).containsExactly(all.get(3).id());
      h.ack(all.get(0).id());

      h.close(worker);

      assertThat(h.tokens("x")).isEqualTo(3); // job 3 still holds the fourth
      assertThat(ids(h.dispatch()))
          .containsExactly(all.get(1).id(), all.get(2).id(), all.get(4).id());
    }

    @Test
    void releasesAFailedJobOnlyOnceWhenItsWorkerThenDisconnects() {
      h.budget("x", whileInFlight(3));
      List<JobSnapshot> all = enqueueBound(3, "x");
      Worker worker = h.openWorker("a", 2);
      assertThat(h.dispatch()).hasSize(2);
      h.openWorker("a", 0);
      assertThat(ids(h.dispatch())).containsExactly(all.get(2).id());

      h.fail(all.get(0).id());
      h.close(worker);

      assertThat(h.tokens("x")).isEqualTo(2); // job 2 still holds the third
      assertThat(status(all.get(0))).isEqualTo(JobStatus.SCHEDULED);
      assertThat(status(all.get(1))).isEqualTo(JobStatus.READY);
    }

    @Test
    void releasesTokensExactlyOnce() {
      h.budget("x", whileInFlight(2));
      enqueueBound(2, "x");
      Worker first = h.openWorker("a", 1);
      h.openWorker("a", 1);
      assertThat(h.dispatch()).hasSize(2);
      JobId acked = first.receivedIds().get(0);

      h.ack(acked);
      assertThatThrownBy(() -> h.ack(acked)).isInstanceOf(SluiceException.NotFound.class);
      assertThatThrownBy(() -> h.fail(acked, failure("late")))
          .isInstanceOf(SluiceException.NotFound.class);
      h.close(first);

      assertThat(h.tokens("x")).isEqualTo(1);
      enqueueBound(2, "x");
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(1);
    }

    @Test
    void paysOffDebtBeforeReleasingAnything() {
      h.budget("x", whileInFlight(3));
      List<JobSnapshot> all = enqueueBound(4, "x");
      Worker worker = h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(3);
      h.patchAllocation("x", 1); // debt 2

      h.fail(all.get(0).id(), killingFailure());
      h.close(worker); // two more leave flight: one pays the debt, one frees the slot

      assertThat(h.debt("x")).isZero();
      assertThat(h.tokens("x")).isEqualTo(1);
    }

    @Test
    void neverRefundsRateTokensWhenTheWorkerDisconnects() {
      h.budget("r", timeBased(1, MINUTE));
      JobSnapshot spent = h.enqueue(job("a").budget("r"));
      Worker worker = h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(1);

      advanceTo(t0 + 1_000);
      h.close(worker);

      assertThat(h.tokens("r")).isZero();
      assertThat(status(spent)).isEqualTo(JobStatus.READY);
      h.openWorker("a", 0);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 59_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 60_000);
      assertThat(ids(h.dispatch())).containsExactly(spent.id());
    }

    @Test
    void neverCreditsARateOnCompletion() {
      h.budget("r", timeBased(2, MINUTE));
      List<JobSnapshot> all = enqueueBound(3, "r");
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(2);

      h.ack(all.get(0).id());
      h.fail(all.get(1).id(), killingFailure());

      assertThat(h.tokens("r")).isZero();
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 29_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 30_000);
      assertThat(ids(h.dispatch())).containsExactly(all.get(2).id());
    }

    @Test
    void creditsOnlyBudgetsThatAreConcurrencyBudgetsAtCompletion() {
      h.budget("x", whileInFlight(1));
      List<JobSnapshot> all = enqueueBound(2, "x");
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(1);

      h.putBudget("x", timeBased(1, MINUTE)); // 0 tokens carried; drips from now on
      h.ack(all.get(0).id());

      assertThat(h.tokens("x")).isZero();
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 59_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 60_000);
      assertThat(ids(h.dispatch())).containsExactly(all.get(1).id());
    }

    @Test
    void creditsABudgetSwitchedToConcurrencyWhileTheJobRan() {
      h.budget("r", timeBased(2, MINUTE));
      List<JobSnapshot> all = enqueueBound(3, "r");
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(2);

      h.putBudget("r", whileInFlight(2)); // 0 tokens carried
      assertThat(h.dispatch()).isEmpty();
      h.ack(all.get(0).id());

      assertThat(h.tokens("r")).isEqualTo(1);
      assertThat(ids(h.dispatch())).containsExactly(all.get(2).id());
    }
  }

  // ---- wake-up ---------------------------------------------------------------------------------

  @Nested
  class WakeUp {
    @Test
    void armsNoTimerWhileAConcurrencyBudgetAlsoBlocks() {
      h.budget("r", timeBased(1, MINUTE)).budget("c", whileInFlight(1));
      List<JobSnapshot> first = h.enqueue(job("a").budget("r"), job("a").budget("c"));
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(2);
      JobSnapshot both = h.enqueue(job("a").budget("r").budget("c"));

      assertThat(h.dispatch()).isEmpty();
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);

      advanceTo(t0 + 20_000);
      h.ack(first.get(1).id());
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 60_000);
      advanceTo(t0 + 59_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 60_000);
      assertThat(ids(h.dispatch())).containsExactly(both.id());
    }

    @Test
    void armsTheLaterInstantOfTwoRates() {
      h.budget("slow", timeBased(1, MINUTE)).budget("fast", timeBased(1, Duration.ofSeconds(10)));
      JobSnapshot spend = h.enqueue(job("a").budget("slow").budget("fast"));
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(ids(h.dispatch())).containsExactly(spend.id());
      JobSnapshot next = h.enqueue(job("a").budget("slow").budget("fast"));

      assertThat(h.dispatch()).isEmpty();
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(t0 + 60_000);
      advanceTo(t0 + 59_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 60_000);
      assertThat(ids(h.dispatch())).containsExactly(next.id());
    }

    @Test
    void leavesAnIdleServerWithoutBudgetDeadlines() {
      h.budget("r", timeBased(1, MINUTE));
      JobSnapshot only = h.enqueue(job("a").budget("r"));
      h.openWorker("a", 0);

      assertThat(ids(h.dispatch())).containsExactly(only.id());

      assertThat(h.engine().nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
      assertThat(h.parkedCount("r")).isZero();
    }

    @Test
    void parksAScheduledJobOnlyOnceItIsPromoted() {
      h.budget("x", whileInFlight(1));
      long t0 = h.nowMs();
      JobSnapshot later = h.enqueue(job("a").priority(0).readyAtMs(t0 + 5_000).budget("x"));
      JobSnapshot now = h.enqueue(job("a").priority(1).budget("x"));
      h.openWorker("a", 0);

      assertThat(h.parkedCount("x")).isEqualTo(1); // only the ready one
      assertThat(ids(h.dispatch())).containsExactly(now.id());
      assertThat(h.parkedCount("x")).isZero();

      advanceTo(t0 + 5_000);
      assertThat(h.dispatch()).isEmpty();
      assertThat(h.parkedCount("x")).isEqualTo(1);
      assertThat(status(later)).isEqualTo(JobStatus.READY);
      h.ack(now.id());
      assertThat(ids(h.dispatch())).containsExactly(later.id());
    }

    @Test
    void deliversADripHeadToAWorkerThatConnectsLater() {
      h.budget("r", timeBased(1, MINUTE));
      List<JobSnapshot> all = enqueueBound(2, "r");
      Worker worker = h.openWorker("a", 0);
      long t0 = h.nowMs();
      assertThat(h.dispatch()).hasSize(1);
      h.close(worker);
      assertThat(h.dispatch()).isEmpty();

      advanceTo(t0 + 60_000);
      assertThat(h.dispatch()).isEmpty(); // nobody listening
      advanceTo(t0 + 90_000);
      h.openWorker("a", 0);

      // Full since +60 s, the bucket banked nothing more: the next token comes 60 s from now.
      assertThat(ids(h.dispatch())).containsExactly(all.get(0).id());
      advanceTo(t0 + 149_999);
      assertThat(h.dispatch()).isEmpty();
      advanceTo(t0 + 150_000);
      assertThat(ids(h.dispatch())).containsExactly(all.get(1).id());
    }
  }

  // ---- restart ---------------------------------------------------------------------------------

  @Nested
  class Restart {
    @Test
    void forgivesWhatThePreviousProcessSpent() { // E13
      h.budget("r", timeBased(6, MINUTE));
      List<JobSnapshot> jobs = enqueueBound(11, "r");
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(6);
      ackAll(jobs.subList(0, 6));
      assertThat(h.dispatch()).isEmpty();
      List<JobSnapshot> stored = jobs.subList(6, 11).stream().map(j -> h.get(j.id())).toList();

      EngineHarness restarted = h.restart(stored);
      restarted.openWorker("a", 0);

      assertThat(ids(restarted.dispatch())).containsExactlyElementsOf(ids(stored));
      assertThat(restarted.budgets().get("r")).isEqualTo(h.budgets().get("r"));
    }

    @Test
    void bringsInFlightJobsBackReadyAndChargesThemAgain() {
      h.budget("x", whileInFlight(2));
      List<JobSnapshot> jobs = enqueueBound(4, "x");
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(2);
      List<JobSnapshot> stored = jobs.stream().map(j -> h.get(j.id())).toList();
      assertThat(stored.get(0).status()).isEqualTo(JobStatus.IN_FLIGHT);

      EngineHarness restarted = h.restart(stored);
      restarted.openWorker("a", 0);

      assertThat(ids(restarted.dispatch())).containsExactly(jobs.get(0).id(), jobs.get(1).id());
      assertThat(restarted.tokens("x")).isZero();
      restarted.ack(jobs.get(0).id());
      assertThat(ids(restarted.dispatch())).containsExactly(jobs.get(2).id());
    }

    @Test
    void rebuildsUnfinishedJobTrackingForTheGuards() {
      h.budget("x", whileInFlight(10));
      JobSnapshot job = h.enqueue(job("a").budget("x", 4));

      EngineHarness restarted = h.restart(List.of(h.get(job.id())));

      assertThatThrownBy(() -> restarted.deleteBudget("x"))
          .isInstanceOf(SluiceException.Conflict.class)
          .hasMessage("budget 'x' is referenced by 1 unfinished job. Delete them or wait for"
              + " them to finish before deleting it.");
      assertThatThrownBy(() -> restarted.patchAllocation("x", 3))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessageStartingWith("budget 'x' cannot allocate 3: 1 unfinished job draw up to 4");
    }
  }

  // ---- enqueue: bindings and create_with -----------------------------------------------------

  @Nested
  class Enqueue {
    @Test
    void createsAMissingBudgetFromCreateWith() { // E14
      JobSnapshot job = h.enqueue(job("a").budget("cpu", null, whileInFlight(100)));

      BudgetView cpu = h.budgets().get("cpu");
      assertThat(cpu.policy()).isEqualTo(new BudgetPolicy(100, StrategyType.WHILE_IN_FLIGHT, 0,
          null));
      assertThat(cpu.createdAtMs()).isEqualTo(h.nowMs());
      assertThat(cpu.updatedAtMs()).isEqualTo(h.nowMs());
      assertThat(job.budgets()).containsExactly(new Binding("cpu", 1));
      assertThat(h.lastTurn()).contains(new Mutation.PutBudget(cpu));
      assertThat(h.tokens("cpu")).isEqualTo(100);
    }

    @Test
    void keepsTheStoredPolicyOfAnExistingBudget() { // E14
      h.enqueue(job("a").budget("cpu", null, whileInFlight(100)));
      h.advanceMs(10);

      h.enqueue(job("a").budget("cpu", null, whileInFlight(5)));

      assertThat(h.budgets().get("cpu").policy().allocation()).isEqualTo(100);
      assertThat(h.budgets().get("cpu").updatedAtMs()).isEqualTo(h.nowMs() - 10);
      assertThat(h.lastTurn()).noneMatch(m -> m instanceof Mutation.PutBudget);
    }

    @Test
    void ignoresAnInvalidCreateWithForAnExistingBudget() {
      h.budget("cpu", whileInFlight(3));

      JobSnapshot job = h.enqueue(
          job("a").budget("cpu", 2L, new PolicySpec(0, "nope", null,
              null)));

      assertThat(job.budgets()).containsExactly(new Binding("cpu", 2));
    }

    @Test
    void letsTheFirstCreateWithOfABulkRequestWin() { // E14
      List<JobSnapshot> jobs = h.enqueueBulk(
          job("a").budget("new", null, whileInFlight(3)),
          job("a").budget("new", null, timeBased(7, MINUTE)));

      assertThat(jobs).hasSize(2);
      assertThat(h.budgets().get("new").policy())
          .isEqualTo(new BudgetPolicy(3, StrategyType.WHILE_IN_FLIGHT, 0, null));
      assertThat(h.mutations(Mutation.PutBudget.class)).hasSize(1);
    }

    @Test
    void checksLaterCostsAgainstThePlannedBudget() {
      int before = h.engine().jobCount();

      assertThatThrownBy(() -> h.enqueueBulk(
              job("a").budget("new", null, whileInFlight(3)),
              job("a").budget("new", 5L, whileInFlight(7))))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("jobs[1]: cost 5 exceeds budget 'new', which holds at most 3");

      assertThat(h.budgets().list()).isEmpty();
      assertThat(h.engine().jobCount()).isEqualTo(before);
      assertThat(h.lastTurn()).isEmpty();
    }

    @Test
    void rejectsAnUnknownBudgetWithoutCreateWithAndStoresNothing() { // E14
      h.budget("known", whileInFlight(1));
      h.enqueue(job("a"));
      int before = h.engine().jobCount();
      int mutationsBefore = h.mutations().size();

      assertThatThrownBy(() -> h.enqueue(job("a").budget("known").budget("ghost")))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget 'ghost' does not exist and no create_with policy was supplied to"
              + " create it with");

      assertThat(h.engine().jobCount()).isEqualTo(before);
      assertThat(h.lastTurn()).isEmpty();
      assertThat(h.mutations()).hasSize(mutationsBefore);
      assertThat(h.budgets().list()).extracting(BudgetView::key).containsExactly("known");
    }

    @Test
    void abortsAWholeBulkRequestAndCreatesNoBudgetOnAnyFailure() {
      int before = h.engine().jobCount();

      assertThatThrownBy(() -> h.enqueueBulk(
              job("a").budget("fresh", null, whileInFlight(2)),
              job("a"),
              job("a").budget("ghost")))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("jobs[2]: budget 'ghost' does not exist and no create_with policy was"
              + " supplied to create it with");

      assertThat(h.budgets().list()).isEmpty();
      assertThat(h.engine().jobCount()).isEqualTo(before);
      assertThat(h.lastTurn()).isEmpty();
    }

    @Test
    void keepsBindingsInRequestOrderWithExplicitCosts() {
      h.budget("z", whileInFlight(5)).budget("a", timeBased(5, MINUTE));

      JobSnapshot job = h.enqueue(job("q").budget("z").budget("a", 3));

      assertThat(job.budgets()).containsExactly(new Binding("z", 1), new Binding("a", 3));
      assertThat(h.get(job.id()).budgets()).isEqualTo(job.budgets());
    }

    @Test
    void rejectsACostAboveTheBurst() { // E16
      h.budget("img", timeBased(10_000, HOUR, 500));

      assertThatThrownBy(() -> h.enqueue(job("a").budget("img", 501)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("cost 501 exceeds budget 'img', which holds at most 500");
      assertThat(h.engine().jobCount()).isZero();

      JobSnapshot fits = h.enqueue(job("a").budget("img", 500));
      h.openWorker("a", 0);
      assertThat(ids(h.dispatch())).containsExactly(fits.id());
      assertThat(h.tokens("img")).isZero();
    }

    @Test
    void rejectsACostAboveTheCapacityOfACreateWith() {
      assertThatThrownBy(() -> h.enqueue(
              job("a").budget("img", 4L, timeBased(10, MINUTE, 3))))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("cost 4 exceeds budget 'img', which holds at most 3");
      assertThat(h.budgets().list()).isEmpty();
    }

    @Test
    void rejectsBindingsInTheOrderOfTheResolutionRules() {
      h.budget("x", whileInFlight(2));

      assertThatThrownBy(() -> h.enqueue(job("a").budget("bad,key").budget("bad,key")))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget key must not contain ','");
      assertThatThrownBy(() -> h.enqueue(job("a").budget("x").budget("x", 0)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget 'x' named more than once");
      assertThatThrownBy(() -> h.enqueue(job("a").budget("ghost", 0)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget cost must be at least 1");
      assertThatThrownBy(() -> h.enqueue(job("a").budget("new", 1L,
              new PolicySpec(0, "while_in_flight", null, null))))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget allocation must be at least 1");
      assertThat(h.engine().jobCount()).isZero();
    }
  }

  // ---- guards ----------------------------------------------------------------------------------

  @Nested
  class Guards {
    private static final String SHRINK_ONE = "budget 'schema-bot' cannot allocate 1: 1 unfinished"
        + " job draw up to 2 from it. Raise the allocation, delete them, or wait for them to"
        + " drain.";
    private static final String DELETE_ONE = "budget 'schema-bot' is referenced by 1 unfinished"
        + " job. Delete them or wait for them to finish before deleting it.";

    private void assertBothGuardsRefuse() {
      int mutationsBefore = h.mutations().size();
      assertThatThrownBy(() -> h.patchAllocation("schema-bot", 1))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage(SHRINK_ONE);
      assertThatThrownBy(() -> h.putBudget("schema-bot", whileInFlight(1)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage(SHRINK_ONE);
      assertThatThrownBy(() -> h.deleteBudget("schema-bot"))
          .isInstanceOf(SluiceException.Conflict.class)
          .hasMessage(DELETE_ONE);
      assertThat(h.budgets().get("schema-bot").policy().allocation()).isEqualTo(10);
      assertThat(h.mutations()).hasSize(mutationsBefore);
    }

    @Test
    void refuseToShrinkOrDeleteUnderAReadyJob() { // E15
      h.budget("schema-bot", whileInFlight(10));
      JobSnapshot job = h.enqueue(job("a").budget("schema-bot", 2));
      assertThat(status(job)).isEqualTo(JobStatus.READY);

      assertBothGuardsRefuse();
    }

    @Test
    void refuseToShrinkOrDeleteUnderAScheduledJob() {
      h.budget("schema-bot", whileInFlight(10));
      JobSnapshot job =
          h.enqueue(job("a").readyAtMs(h.nowMs() + 60_000).budget("schema-bot", 2));
      assertThat(status(job)).isEqualTo(JobStatus.SCHEDULED);

      assertBothGuardsRefuse();
    }

    @Test
    void refuseToShrinkOrDeleteUnderAnInFlightJob() {
      h.budget("schema-bot", whileInFlight(10));
      JobSnapshot job = h.enqueue(job("a").budget("schema-bot", 2));
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(1);
      assertThat(status(job)).isEqualTo(JobStatus.IN_FLIGHT);

      assertBothGuardsRefuse();
    }

    @Test
    void refuseWhileAFailedJobWaitsForItsRetry() {
      h.budget("schema-bot", whileInFlight(10));
      JobSnapshot job = h.enqueue(job("a").budget("schema-bot", 2));
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(1);

      assertThat(h.fail(job.id()).status()).isEqualTo(JobStatus.SCHEDULED);

      assertBothGuardsRefuse();
    }

    @Test
    void countJobsAndNameTheLargestCost() {
      h.budget("schema-bot", whileInFlight(10));
      h.enqueue(job("a").budget("schema-bot", 2), job("a").budget("schema-bot", 3),
          job("a").budget("schema-bot", 1));

      assertThatThrownBy(() -> h.patchAllocation("schema-bot", 2))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget 'schema-bot' cannot allocate 2: 3 unfinished jobs draw up to 3 from"
              + " it. Raise the allocation, delete them, or wait for them to drain.");
      assertThatThrownBy(() -> h.deleteBudget("schema-bot"))
          .isInstanceOf(SluiceException.Conflict.class)
          .hasMessage("budget 'schema-bot' is referenced by 3 unfinished jobs. Delete them or"
              + " wait for them to finish before deleting it.");
    }

    @Test
    void allowShrinkingDownToTheLargestCost() {
      h.budget("schema-bot", whileInFlight(10));
      h.enqueue(job("a").budget("schema-bot", 2));

      assertThat(h.patchAllocation("schema-bot", 2).policy().allocation()).isEqualTo(2);
    }

    @Test
    void measureARateAgainstItsNewBurst() {
      h.budget("img", timeBased(10_000, HOUR, 500));
      h.enqueue(job("a").budget("img", 400));

      assertThatThrownBy(() -> h.patchBudget("img", new PolicyPatch(null, null, null, 300L,
              false)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget 'img' cannot allocate 300: 1 unfinished job draw up to 400 from it."
              + " Raise the allocation, delete them, or wait for them to drain.");
      assertThatThrownBy(() -> h.putBudget("img", timeBased(300, HOUR)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessageStartingWith("budget 'img' cannot allocate 300: ");
      assertThat(h.patchBudget("img", new PolicyPatch(null, null, null, null, true))
          .policy().capacity()).isEqualTo(10_000);
    }

    @Test
    void letABudgetReferencedOnlyByFinishedJobsGo() {
      h.budget("schema-bot", whileInFlight(10));
      RetentionPolicy keep = new RetentionPolicy(3_600_000L, 3_600_000L);
      List<JobSnapshot> jobs = h.enqueue(job("a").retention(keep).budget("schema-bot", 2),
          job("a").retention(keep).budget("schema-bot", 3));
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(2);
      h.ack(jobs.get(0).id());
      h.fail(jobs.get(1).id(), killingFailure());
      assertThat(status(jobs.get(0))).isEqualTo(JobStatus.COMPLETED);
      assertThat(status(jobs.get(1))).isEqualTo(JobStatus.DEAD);

      h.patchAllocation("schema-bot", 1);
      h.deleteBudget("schema-bot");

      assertThat(h.lastTurn()).containsExactly(new Mutation.DeleteBudget("schema-bot"));
      assertThat(h.budgets().list()).isEmpty();
      assertThat(h.get(jobs.get(0).id()).budgets()).containsExactly(new Binding("schema-bot", 2));
    }
  }

  // ---- delete ----------------------------------------------------------------------------------

  @Nested
  class Delete {
    @Test
    void dropsTheLiveStateSoARecreatedBudgetStartsFull() {
      h.budget("r", timeBased(2, MINUTE));
      List<JobSnapshot> spent = enqueueBound(2, "r");
      h.openWorker("a", 0);
      assertThat(h.dispatch()).hasSize(2);
      ackAll(spent);

      h.deleteBudget("r");
      h.budget("r", timeBased(2, MINUTE));

      assertThat(h.tokens("r")).isEqualTo(2);
      assertThat(h.dispatch()).isEmpty();
      enqueueBound(3, "r");
      assertThat(h.dispatch()).hasSize(2);
    }

    @Test
    void reportsAMissingBudget() {
      assertThatThrownBy(() -> h.deleteBudget("nope"))
          .isInstanceOf(SluiceException.NotFound.class)
          .hasMessage("budget 'nope' not found");
    }
  }

  // ---- the budget cap --------------------------------------------------------------------------

  @Nested
  class Cap {
    private final EngineHarness capped =
        EngineHarness.create(EngineConfig.defaults().withMaxBudgets(2));

    private String capMessage(String key) {
      return "cannot create budget '" + key + "': the server already holds its maximum of 2"
          + " budgets (--max-budgets / SLUICE_MAX_BUDGETS). Raise the limit, or express the"
          + " throttle as one shared budget rather than one per caller.";
    }

    @Test
    void refusesEveryCreationAtTheCapButAllowsChanges() { // E17
      capped.budget("a", whileInFlight(1)).budget("b", whileInFlight(1));

      assertThatThrownBy(() -> capped.createBudget("c", whileInFlight(1)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage(capMessage("c"));
      assertThatThrownBy(() -> capped.putBudget("c", whileInFlight(1)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage(capMessage("c"));
      assertThat(capped.putBudget("a", whileInFlight(5)).policy().allocation()).isEqualTo(5);
      assertThat(capped.patchAllocation("b", 7).policy().allocation()).isEqualTo(7);
      assertThatThrownBy(() -> capped.enqueue(job("q").budget("c", null, whileInFlight(1))))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage(capMessage("c"));
      assertThat(capped.engine().jobCount()).isZero();
      assertThat(capped.budgets().list()).extracting(BudgetView::key).containsExactly("a", "b");
    }

    @Test
    void allowsBindingToExistingBudgetsAtTheCap() {
      capped.budget("a", whileInFlight(1)).budget("b", whileInFlight(1));

      JobSnapshot job = capped.enqueue(job("q").budget("a", null, whileInFlight(9)));

      assertThat(job.budgets()).containsExactly(new Binding("a", 1));
    }

    @Test
    void makesRoomWhenABudgetIsDeleted() {
      capped.budget("a", whileInFlight(1)).budget("b", whileInFlight(1));

      capped.deleteBudget("b");

      assertThat(capped.createBudget("c", whileInFlight(1)).key()).isEqualTo("c");
    }

    @Test
    void countsBudgetsPlannedEarlierInTheSameRequest() {
      capped.budget("a", whileInFlight(1));

      assertThatThrownBy(() -> capped.enqueueBulk(
              job("q").budget("x", null, whileInFlight(1)),
              job("q").budget("x", null, whileInFlight(1)).budget("y", null, whileInFlight(1))))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("jobs[1]: " + capMessage("y"));
      assertThat(capped.budgets().list()).extracting(BudgetView::key).containsExactly("a");
    }
  }

  // ---- mixed strategies ------------------------------------------------------------------------

  @Nested
  class MixedStrategies {
    @Test
    void respectsBothTenConcurrentAndAThousandAnHour() { // E18
      h.budget("w", whileInFlight(10)).budget("h", timeBased(1_000, HOUR));
      int total = 3_000;
      JobSpec[] specs = new JobSpec[total];
      for (int i = 0; i < total; i++) {
        specs[i] = job("a").budget("w").budget("h");
      }
      h.enqueue(specs);
      h.openWorker("a", 0);
      long t0 = h.nowMs();
      long jobMs = 50;
      Deque<long[]> acks = new ArrayDeque<>(); // {ackAtMs, index into delivered}
      List<JobId> delivered = new ArrayList<>();
      List<Long> times = new ArrayList<>();
      int maxInFlight = 0;

      while (delivered.size() < total && h.nowMs() < t0 + 3 * 3_600_000L) {
        for (JobSnapshot job : h.dispatch()) {
          acks.add(new long[] {h.nowMs() + jobMs, delivered.size()});
          delivered.add(job.id());
          times.add(h.nowMs());
        }
        maxInFlight = Math.max(maxInFlight, h.engine().inFlightCount());
        long next = Math.min(h.engine().nextDeadlineMs(),
            acks.isEmpty() ? Long.MAX_VALUE : acks.peekFirst()[0]);
        assertThat(next).isLessThan(Long.MAX_VALUE);
        advanceTo(next);
        while (!acks.isEmpty() && acks.peekFirst()[0] <= h.nowMs()) {
          h.ack(delivered.get((int) acks.pollFirst()[1]));
        }
      }

      assertThat(delivered).hasSize(total).doesNotHaveDuplicates();
      assertThat(maxInFlight).isEqualTo(10);
      long hourMs = 3_600_000;
      long drainedAt = t0 + 10_000; // the initial full bucket is spent by then
      for (int i = 0, j = 0; i < times.size(); i++) {
        while (j < times.size() && times.get(j) < times.get(i) + hourMs) {
          j++;
        }
        int inWindow = j - i;
        assertThat(inWindow).as("dispatches in the hour from +%d ms", times.get(i) - t0)
            .isLessThanOrEqualTo(times.get(i) >= drainedAt ? 1_000 : 2_000);
      }
      // One token every 3.6 s once the initial bucket is spent.
      assertThat(times.stream().filter(t -> t >= t0 + hourMs && t < t0 + 2 * hourMs))
          .hasSize(1_000);
    }
  }

  @Nested
  class SkippedCandidates {
    /**
     * A candidate skipped for a stream because another job of its budget came first in the
     * stream's queues goes as soon as that job leaves the waiting queue, though nothing else
     * happens (no offer, no returned slot).
     */
    @Test
    void goesWhenTheJobThatHeadedItsBudgetIsDeleted() {
      h.budget("shared", whileInFlight(10)).budget("busy", whileInFlight(1));
      Worker busyHolder = h.openWorker("other", 1);
      h.enqueue(job("other").budget("busy"));
      h.dispatch();
      assertThat(busyHolder.received()).hasSize(1);
      Worker both = h.openWorker(Set.of("q1", "q2"), 10);
      JobSnapshot blocker = h.enqueue(job("q2").priority(10).budget("shared").budget("busy"));
      JobSnapshot candidate = h.enqueue(job("q1").priority(20).budget("shared"));
      h.dispatch();
      assertThat(both.received()).isEmpty();

      h.turn((engine, nowMs) -> {
        engine.delete(blocker.id(), nowMs);
        return null;
      });
      h.dispatch();

      assertThat(both.receivedIds()).containsExactly(candidate.id());
    }
  }
}

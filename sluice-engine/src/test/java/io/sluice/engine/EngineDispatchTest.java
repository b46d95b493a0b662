package io.sluice.engine;

import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.whileInFlight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.EngineHarness.Worker;
import io.sluice.engine.dispatch.Dispatcher;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Which job goes to which take stream, when, and what happens to it when the stream ends. */
class EngineDispatchTest {
  private final EngineHarness h = EngineHarness.create();

  private static List<JobId> ids(List<JobSnapshot> jobs) {
    return jobs.stream().map(JobSnapshot::id).toList();
  }

  /** Two workers of queue "a", one holding two jobs and the other one. */
  private record Uneven(Worker holdsTwo, Worker holdsOne) {}

  private Uneven twoWorkersHoldingTwoAndOne() {
    Worker one = h.openWorker("a", 0);
    Worker two = h.openWorker("a", 0);
    h.enqueue(3, "a");
    h.dispatch();
    return one.received().size() == 2 ? new Uneven(one, two) : new Uneven(two, one);
  }

  /** Two workers of queue "a", in the order opened; each got one job and acknowledged it. */
  private List<Worker> twoWorkersThatEachFinishedAJob() {
    Worker one = h.openWorker("a", 0);
    Worker two = h.openWorker("a", 0);
    h.enqueue(2, "a");
    h.dispatch();
    h.ack(one.received().get(0).id());
    h.ack(two.received().get(0).id());
    return List.of(one, two);
  }

  @Nested
  class Dispatch {
    @Test
    void ordersByPriorityThenFifoWithinAQueue() {
      List<JobSnapshot> jobs = h.enqueue(
          job("a").priority(5), job("a").priority(1), job("a").priority(5), job("a").priority(1));
      h.openWorker("a", 0);

      assertThat(ids(h.dispatch()))
          .containsExactly(jobs.get(1).id(), jobs.get(3).id(), jobs.get(0).id(), jobs.get(2).id());
    }

    @Test
    void ordersFifoByIdAcrossEnqueueTurns() {
      JobSnapshot first = h.enqueue("a");
      h.advanceMs(1);
      JobSnapshot second = h.enqueue("a");
      JobSnapshot urgent = h.enqueue(job("a").priority(1));
      h.openWorker("a", 0);

      assertThat(ids(h.dispatch())).containsExactly(urgent.id(), first.id(), second.id());
    }

    @Test
    void takesTheBestJobAcrossEveryRequestedQueue() {
      List<JobSnapshot> jobs = h.enqueue(
          job("a").priority(5), // 0
          job("b").priority(1), // 1
          job("a").priority(1), // 2
          job("b").priority(5), // 3
          job("c").priority(0)); // 4: not requested
      h.openWorker(Set.of("a", "b"), 0);

      assertThat(ids(h.dispatch()))
          .containsExactly(
              jobs.get(1).id(), jobs.get(2).id(), jobs.get(0).id(), jobs.get(3).id());
    }

    @Test
    void neverGivesAWorkerJobsOfAQueueItDidNotAskFor() {
      JobSnapshot onB = h.enqueue("b");
      Worker forA = h.openWorker("a", 0);

      assertThat(h.dispatch()).isEmpty();

      Worker forB = h.openWorker("b", 0);
      assertThat(ids(h.dispatch())).containsExactly(onB.id());
      assertThat(forA.received()).isEmpty();
      assertThat(forB.receivedIds()).containsExactly(onB.id());
    }

    @Test
    void givesAWorkerWithoutQueuesJobsFromEveryQueue() {
      List<JobSnapshot> jobs =
          h.enqueue(job("x").priority(9), job("y").priority(3), job("z").priority(3));
      h.openWorker((Set<String>) null, 0);

      assertThat(ids(h.dispatch()))
          .containsExactly(jobs.get(1).id(), jobs.get(2).id(), jobs.get(0).id());
    }

    @Test
    void marksTheDeliveredJobInFlightAtDispatchTime() {
      JobSnapshot enqueued = h.enqueue(job("a").payload("{\"n\":1}"));
      h.openWorker("a", 1);
      h.advanceMs(7);

      JobSnapshot delivered = h.dispatch().get(0);

      assertThat(delivered.status()).isEqualTo(JobStatus.IN_FLIGHT);
      assertThat(delivered.dequeuedAtMs()).isEqualTo(h.nowMs());
      assertThat(delivered.payload()).asString().isEqualTo("{\"n\":1}");
      assertThat(h.get(enqueued.id()).status()).isEqualTo(JobStatus.IN_FLIGHT);
      assertThat(h.engine().inFlightCount()).isEqualTo(1);
    }

    @Test
    void dispatchesANewJobOnlyOnceItsEnqueueIsCommitted() {
      Engine engine = new Engine(EngineConfig.defaults());
      List<JobSnapshot> received = new ArrayList<>();
      engine.openSession(null, 0, received::addAll);
      engine.enqueue(List.of(job("a").toNewJob(new JobIdGenerator().next(0))), 0);

      engine.dispatch(0);
      assertThat(received).isEmpty();

      engine.committed(engine.takeTurn().newJobs(), 0);
      engine.dispatch(0);
      assertThat(received).hasSize(1);
    }

    @Test
    void holdsAtMostPrefetchJobsAndAnAckFreesASlot() {
      List<JobSnapshot> jobs = h.enqueue(5, "a");
      Worker worker = h.openWorker("a", 2);

      assertThat(ids(h.dispatch())).containsExactly(jobs.get(0).id(), jobs.get(1).id());
      assertThat(h.dispatch()).isEmpty();

      h.ack(jobs.get(0).id());

      assertThat(ids(h.dispatch())).containsExactly(jobs.get(2).id());
      assertThat(worker.received()).hasSize(3);
    }

    @Test
    void countsUnfinishedAndActiveJobsButNotFinishedOnesKeptForRetention() {
      RetentionPolicy kept = new RetentionPolicy(60_000L, null);
      h.enqueue(job("a").retention(kept), job("a").retention(kept), job("a"), job("a"));
      h.enqueue(job("a").readyAtMs(h.nowMs() + 60_000));
      h.budget("none", whileInFlight(1));
      h.enqueue(job("b").budget("none"), job("b").budget("none"));
      assertThat(h.engine().unfinishedJobCount()).isEqualTo(7);
      assertThat(h.engine().activeJobCount()).as("the scheduled job is not active").isEqualTo(6);

      Worker onA = h.openWorker("a", 2);
      h.openWorker("b", 5);
      assertThat(h.dispatch()).hasSize(3);
      assertThat(h.engine().activeJobCount())
          .as("in flight, ready, or parked on the budget: all active").isEqualTo(6);

      onA.received().forEach(job -> h.ack(job.id()));
      assertThat(h.engine().jobCount()).as("the two finished jobs are kept").isEqualTo(7);
      assertThat(h.engine().unfinishedJobCount()).isEqualTo(5);
      assertThat(h.engine().activeJobCount()).isEqualTo(4);
    }

    @Test
    void treatsPrefetchZeroAsUnlimited() {
      h.enqueue(50, "a");
      h.openWorker("a", 0);

      assertThat(h.dispatch()).hasSize(50);
    }

    @Test
    void neverExceedsTheGlobalInFlightLimitAcrossWorkers() {
      EngineHarness limited =
          EngineHarness.create(EngineConfig.defaults().withGlobalInFlightLimit(3));
      List<JobSnapshot> jobs = limited.enqueue(5, "a");
      Worker one = limited.openWorker("a", 5);
      Worker two = limited.openWorker("a", 5);

      assertThat(limited.dispatch()).hasSize(3);
      assertThat(limited.engine().inFlightCount()).isEqualTo(3);
      assertThat(limited.dispatch()).isEmpty();

      limited.ack(one.received().get(0).id());

      assertThat(ids(limited.dispatch())).containsExactly(jobs.get(3).id());
      assertThat(one.received().size() + two.received().size()).isEqualTo(4);
    }

    @Test
    void sharesABacklogRoundRobinBetweenTwoWorkers() {
      List<JobSnapshot> jobs = h.enqueue(4, "a");
      Worker one = h.openWorker("a", 0);
      Worker two = h.openWorker("a", 0);

      h.dispatch();

      List<JobId> odd = List.of(jobs.get(0).id(), jobs.get(2).id());
      List<JobId> even = List.of(jobs.get(1).id(), jobs.get(3).id());
      assertThat(List.of(one.receivedIds(), two.receivedIds()))
          .containsExactlyInAnyOrder(odd, even);
    }

    @Test
    void spreadsScarceJobsOverTheWorkersHoldingFewest() {
      Worker one = h.openWorker("a", 0);
      Worker two = h.openWorker("a", 0);

      for (int i = 0; i < 4; i++) {
        h.enqueue("a");
        assertThat(h.dispatch()).hasSize(1);
      }

      assertThat(one.received()).hasSize(2);
      assertThat(two.received()).hasSize(2);
    }

    @Test
    void aJobArrivingAloneGoesToTheWorkerThatJustFinishedOne() {
      List<Worker> workers =
          List.of(h.openWorker("a", 0), h.openWorker("a", 0), h.openWorker("a", 0));
      h.enqueue("a");
      h.dispatch();
      Worker awake = workers.stream()
          .filter(worker -> !worker.received().isEmpty()).findFirst().orElseThrow();

      for (int i = 0; i < 5; i++) {
        h.ack(awake.received().get(i).id());
        h.advanceMs(Dispatcher.AWAKE_MS);
        h.enqueue("a");
        assertThat(h.dispatch()).hasSize(1);
        assertThat(awake.received()).hasSize(i + 2);
      }
      assertThat(workers.stream().mapToInt(worker -> worker.received().size()).sum()).isEqualTo(6);
    }

    @Test
    void anAwakeWorkerGetsTheNextJobEvenWhileHoldingMore() {
      Uneven workers = twoWorkersHoldingTwoAndOne();
      Worker holdsTwo = workers.holdsTwo();
      Worker holdsOne = workers.holdsOne();
      h.ack(holdsOne.received().get(0).id());
      h.advanceMs(Dispatcher.AWAKE_MS + 1);
      h.ack(holdsTwo.received().get(0).id());
      h.advanceMs(Dispatcher.AWAKE_MS);

      h.enqueue("a");
      h.dispatch();

      assertThat(holdsTwo.received()).hasSize(3);
      assertThat(holdsOne.received()).hasSize(1);
    }

    @Test
    void anAwakeWorkerHoldingTwoMoreThanAnotherLeavesTheJobToIt() {
      Worker busy = h.openWorker("a", 0);
      List<JobSnapshot> first = h.enqueue(4, "a");
      h.dispatch();
      h.ack(first.get(0).id());
      Worker idle = h.openWorker("a", 0);

      JobSnapshot next = h.enqueue("a");
      h.dispatch();

      assertThat(idle.receivedIds()).containsExactly(next.id());
      assertThat(busy.received()).hasSize(4);
    }

    @Test
    void aFailureDoesNotMakeAWorkerAwake() {
      Worker one = h.openWorker("a", 0);
      Worker two = h.openWorker("a", 0);
      h.enqueue(4, "a");
      h.dispatch();
      h.ack(one.received().get(0).id());
      h.advanceMs(Dispatcher.AWAKE_MS + 1);
      h.fail(two.received().get(0).id());

      JobSnapshot next = h.enqueue("a");
      h.dispatch();

      assertThat(one.receivedIds()).contains(next.id());
      assertThat(two.receivedIds()).doesNotContain(next.id());
    }

    @Test
    void ofIdleWorkersHoldingAlikeTheOneThatSucceededLastGetsTheJob() {
      List<Worker> workers = twoWorkersThatEachFinishedAJob();
      Worker one = workers.get(0);
      Worker two = workers.get(1);
      h.advanceMs(Dispatcher.AWAKE_MS + 1);

      JobSnapshot next = h.enqueue("a");
      h.dispatch();

      assertThat(two.receivedIds()).contains(next.id());
      assertThat(one.received()).hasSize(1);
    }

    @Test
    void anAwakeWorkerOfAnotherQueueDoesNotDecideWhichWorkerOfTheQueueGetsTheJob() {
      Worker other = h.openWorker(Set.of("b"), 0);
      Worker first = h.openWorker(Set.of("a"), 0);
      Worker second = h.openWorker(Set.of("a"), 0);
      JobSnapshot forOther = h.enqueue("b");
      h.dispatch();
      h.ack(forOther.id());
      h.enqueue("a");
      h.dispatch();
      assertThat(first.received()).hasSize(1);

      JobSnapshot next = h.enqueue("a");
      h.dispatch();

      assertThat(second.receivedIds()).containsExactly(next.id());
      assertThat(other.received()).hasSize(1);
    }

    @Test
    void ofTheAwakeWorkersTheFirstOpenedKeepsTheWork() {
      List<Worker> workers = twoWorkersThatEachFinishedAJob();
      Worker one = workers.get(0);
      Worker two = workers.get(1);

      for (int i = 1; i <= 3; i++) {
        h.enqueue("a");
        h.dispatch();
        assertThat(one.received()).hasSize(i + 1);
        h.ack(one.received().get(i).id());
      }
      assertThat(two.received()).hasSize(1);
    }

    @Test
    void onceEveryWorkerHasBeenIdleAJobGoesToTheOneHoldingFewest() {
      Uneven workers = twoWorkersHoldingTwoAndOne();
      Worker holdsTwo = workers.holdsTwo();
      Worker holdsOne = workers.holdsOne();
      h.ack(holdsOne.received().get(0).id());
      h.ack(holdsTwo.received().get(0).id());
      h.advanceMs(Dispatcher.AWAKE_MS + 1);

      h.enqueue("a");
      h.dispatch();

      assertThat(holdsOne.received()).hasSize(2);
      assertThat(holdsTwo.received()).hasSize(2);
    }

    @Test
    void aPacedWorkerGetsNothingMoreUntilItsDeliveryIsWritten() {
      Worker worker = h.openPacedWorker("a", 0);
      JobSnapshot first = h.enqueue("a");
      assertThat(ids(h.dispatch())).containsExactly(first.id());
      JobSnapshot second = h.enqueue("a");

      assertThat(h.dispatch()).isEmpty();
      assertThat(h.get(second.id()).status()).isEqualTo(JobStatus.READY);

      h.written(worker);
      assertThat(ids(h.dispatch())).containsExactly(second.id());
    }

    @Test
    void aPacedDeliveryHoldsAtMostMaxDeliveryJobs() {
      Worker worker = h.openPacedWorker("a", 0);
      for (int i = 0; i < WorkerSession.MAX_DELIVERY + 10; i++) {
        h.enqueue("a");
      }

      assertThat(h.dispatch()).hasSize(WorkerSession.MAX_DELIVERY);
      assertThat(h.dispatch()).isEmpty();
      h.written(worker);
      assertThat(h.dispatch()).hasSize(10);
    }

    @Test
    void aPacedDeliveryTakesNoFurtherJobOnceItsPayloadsReachTheByteBound() {
      Worker worker = h.openPacedWorker("a", 0);
      String big = "\"" + "x".repeat(400 * 1024) + "\"";
      for (int i = 0; i < 5; i++) {
        h.enqueue(job("a").payload(big));
      }

      assertThat(h.dispatch()).hasSize(3);
      h.written(worker);
      assertThat(h.dispatch()).hasSize(2);
    }

    @Test
    void aWorkerThatStopsReadingLeavesTheOtherHalfOfTheSlotsToOthers() {
      // Global limit 1024 (the default): prefetch 0 means at most 512 for one stream.
      Worker stalled = h.openWorker("a", 0);
      for (int i = 0; i < 2000; i++) {
        h.enqueue("a");
      }
      h.dispatch();
      assertThat(stalled.received()).hasSize(512);

      Worker healthy = h.openWorker("a", 16);
      assertThat(h.dispatch()).hasSize(16);
      assertThat(healthy.received()).hasSize(16);
    }

    @Test
    void unlimitedPrefetchIsCappedAtHalfTheGlobalLimitOrTenThousand() {
      assertThat(Engine.unlimitedPrefetchCap(1024)).isEqualTo(512);
      assertThat(Engine.unlimitedPrefetchCap(1)).isEqualTo(1);
      assertThat(Engine.unlimitedPrefetchCap(0)).isEqualTo(10_000);
      assertThat(Engine.unlimitedPrefetchCap(1_000_000)).isEqualTo(10_000);
    }
  }

  @Nested
  class Complete {
    @Test
    void rejectsAJobThatIsNotInFlight() {
      JobSnapshot queued = h.enqueue("a");

      assertThatThrownBy(() -> h.ack(queued.id()))
          .isInstanceOf(SluiceException.NotFound.class)
          .hasMessage("job not found in in-flight set");
    }

    @Test
    void rejectsASecondAck() {
      JobSnapshot queued = h.enqueue("a");
      h.openWorker("a", 1);
      h.dispatch();
      h.ack(queued.id());

      assertThatThrownBy(() -> h.ack(queued.id())).isInstanceOf(SluiceException.NotFound.class);
    }

    @Test
    void completesEveryInFlightIdAndReturnsTheOthersInRequestOrder() {
      List<JobSnapshot> jobs = h.enqueue(3, "a");
      h.openWorker("a", 2);
      h.dispatch();
      String waiting = jobs.get(2).id().toString();
      String malformed = "not-an-id";

      List<String> notFound = h.engine().completeAll(AckedIds.of(
          List.of(waiting, jobs.get(0).id().toString(), malformed, jobs.get(1).id().toString())),
          h.nowMs());

      assertThat(notFound).containsExactly(waiting, malformed);
      assertThat(h.engine().inFlightCount()).isZero();
    }
  }

  @Nested
  class CloseSession {
    @Test
    void returnsHeldJobsToReadyUnchangedAndRedispatchesThemToAnotherWorker() {
      JobSnapshot retried = h.enqueue("a");
      JobSnapshot fresh = h.enqueue("a");
      Worker first = h.openWorker("a", 2);
      h.dispatch();
      h.fail(retried.id(), EngineHarness.failureRetryingAt(h.nowMs()));
      h.advance(Duration.ofSeconds(3));
      h.dispatch();
      JobSnapshot beforeClose = h.get(retried.id());
      assertThat(beforeClose.status()).isEqualTo(JobStatus.IN_FLIGHT);
      assertThat(first.received()).hasSize(3);

      h.advance(Duration.ofSeconds(1));
      h.close(first);

      JobSnapshot requeued = h.get(retried.id());
      assertThat(requeued.status()).isEqualTo(JobStatus.READY);
      assertThat(requeued.attempts()).isEqualTo(1);
      assertThat(requeued.readyAtMs()).isEqualTo(beforeClose.readyAtMs());
      assertThat(requeued.dequeuedAtMs()).isEqualTo(beforeClose.dequeuedAtMs());
      assertThat(h.get(fresh.id()).status()).isEqualTo(JobStatus.READY);
      assertThat(h.engine().inFlightCount()).isZero();

      Worker second = h.openWorker("a", 0);
      assertThat(ids(h.dispatch())).containsExactly(retried.id(), fresh.id());
      assertThat(second.received().get(0).attempts()).isEqualTo(1);
    }

    @Test
    void deliversNothingMoreToAClosedWorker() {
      Worker closed = h.openWorker("a", 0);
      h.close(closed);

      h.enqueue("a");

      assertThat(h.dispatch()).isEmpty();
      assertThat(closed.received()).isEmpty();
    }

    @Test
    void rejectsAnAckForAJobThatWasRequeued() {
      JobSnapshot queued = h.enqueue("a");
      Worker worker = h.openWorker("a", 1);
      h.dispatch();
      h.close(worker);

      assertThatThrownBy(() -> h.ack(queued.id())).isInstanceOf(SluiceException.NotFound.class);
    }

    @Test
    void ignoresASecondClose() {
      h.enqueue("a");
      Worker worker = h.openWorker("a", 1);
      h.dispatch();
      h.close(worker);
      Worker other = h.openWorker("a", 1);
      h.dispatch();

      h.close(worker);

      assertThat(other.received()).hasSize(1);
      assertThat(h.engine().inFlightCount()).isEqualTo(1);
    }
  }
}

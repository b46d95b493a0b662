package io.sluice.engine;

import static io.sluice.engine.EngineHarness.job;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Jobs with a future ready_at wait in the scheduled index until exactly that millisecond. */
class EngineSchedulingTest {
  private final EngineHarness h = EngineHarness.create();

  @Nested
  class Enqueue {
    @Test
    void schedulesAJobWhoseReadyAtIsInTheFuture() {
      long readyAtMs = h.nowMs() + 5_000;

      JobSnapshot created = h.enqueue(job("a").readyAtMs(readyAtMs));

      assertThat(created.status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(created.readyAtMs()).isEqualTo(readyAtMs);
      assertThat(h.get(created.id()).status()).isEqualTo(JobStatus.SCHEDULED);
    }

    @Test
    void makesAJobWithoutReadyAtReadyNow() {
      JobSnapshot created = h.enqueue("a");

      assertThat(created.status()).isEqualTo(JobStatus.READY);
      assertThat(created.readyAtMs()).isEqualTo(h.nowMs());
    }

    @Test
    void makesAJobWhoseReadyAtIsNowReadyAtOnce() {
      JobSnapshot created = h.enqueue(job("a").readyAtMs(h.nowMs()));
      h.openWorker("a", 1);

      assertThat(created.status()).isEqualTo(JobStatus.READY);
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(created.id());
    }

    @Test
    void makesAJobWhoseReadyAtIsInThePastReadyAtOnce() {
      long pastMs = h.nowMs() - 60_000;
      JobSnapshot created = h.enqueue(job("a").readyAtMs(pastMs));
      h.openWorker("a", 1);

      assertThat(created.status()).isEqualTo(JobStatus.READY);
      assertThat(created.readyAtMs()).isEqualTo(pastMs);
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(created.id());
    }
  }

  @Nested
  class RunDue {
    @Test
    void promotesAScheduledJobAtExactlyItsReadyAt() {
      long readyAtMs = h.nowMs() + 5_000;
      JobSnapshot scheduled = h.enqueue(job("a").readyAtMs(readyAtMs));
      h.openWorker("a", 1);
      assertThat(h.dispatch()).isEmpty();

      h.advanceMs(4_999);
      assertThat(h.dispatch()).isEmpty();
      assertThat(h.get(scheduled.id()).status()).isEqualTo(JobStatus.SCHEDULED);

      h.advanceMs(1);
      assertThat(h.nowMs()).isEqualTo(readyAtMs);
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(scheduled.id());
    }

    @Test
    void makesThePromotedJobReadyEvenWithoutAWorker() {
      JobSnapshot scheduled = h.enqueue(job("a").readyAtMs(h.nowMs() + 5_000));
      h.advanceMs(5_000);

      h.runDue();

      assertThat(h.get(scheduled.id()).status()).isEqualTo(JobStatus.READY);
    }

    @Test
    void reportsTheEarliestReadyAtAsTheNextDeadline() {
      long start = h.nowMs();
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);

      h.enqueue(job("a").readyAtMs(start + 9_000));
      h.enqueue(job("b").readyAtMs(start + 5_000));
      h.enqueue("c"); // ready now: no deadline

      assertThat(h.engine().nextDeadlineMs()).isEqualTo(start + 5_000);

      h.advanceMs(5_000);
      h.runDue();
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(start + 9_000);

      h.advanceMs(4_000);
      h.runDue();
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void dispatchesJobsThatBecomeDueTogetherInPriorityOrder() {
      long readyAtMs = h.nowMs() + 1_000;
      List<JobSnapshot> jobs = h.enqueue(
          job("a").readyAtMs(readyAtMs).priority(7), job("a").readyAtMs(readyAtMs).priority(2));
      h.openWorker("a", 0);
      h.advanceMs(1_000);

      assertThat(h.dispatch())
          .extracting(JobSnapshot::id)
          .containsExactly(jobs.get(1).id(), jobs.get(0).id());
    }

    @Test
    void leavesJobsBeyondTheBatchSizeDueForTheNextTurn() {
      EngineConfig config = new EngineConfig(25, BackoffPolicy.DEFAULT, 0, 0, 0, 30_000, 2, 0);
      EngineHarness small = EngineHarness.create(config);
      long readyAtMs = small.nowMs() + 1_000;
      small.enqueue(
          job("a").readyAtMs(readyAtMs),
          job("a").readyAtMs(readyAtMs),
          job("a").readyAtMs(readyAtMs));
      small.openWorker("a", 0);
      small.advanceMs(1_000);

      assertThat(small.dispatch()).hasSize(2);
      assertThat(small.engine().nextDeadlineMs()).isLessThanOrEqualTo(small.nowMs());
      assertThat(small.dispatch()).hasSize(1);
      assertThat(small.engine().nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
    }
  }
}

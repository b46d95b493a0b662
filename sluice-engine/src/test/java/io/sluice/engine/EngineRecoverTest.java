package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.store.Mutation;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Start-up: stored job records are loaded back into the engine's indexes (API.md §4.1). */
class EngineRecoverTest {
  private final EngineHarness h = EngineHarness.create();
  private final JobIdGenerator ids = new JobIdGenerator();

  /** A stored record as the store would return it (no payload). */
  private JobSnapshot stored(JobStatus status, long readyAtMs, int priority) {
    return new JobSnapshot(ids.next(h.nowMs() - 100_000), "test_job", "a", priority, status,
        readyAtMs, 0, null, null, null, Job.NONE, Job.NONE, Job.NONE, Job.NONE, null);
  }

  private JobSnapshot stored(JobStatus status, long readyAtMs) {
    return stored(status, readyAtMs, NewJob.DEFAULT_PRIORITY);
  }

  private JobSnapshot terminal(JobStatus status, long purgeAtMs) {
    JobSnapshot s = stored(status, h.nowMs() - 50_000);
    return new JobSnapshot(s.id(), s.type(), s.queue(), s.priority(), status, s.readyAtMs(), 2,
        3, new BackoffPolicy(1, 2f, 3), new RetentionPolicy(10L, 20L), h.nowMs() - 40_000,
        h.nowMs() - 30_000, status == JobStatus.COMPLETED ? h.nowMs() - 30_000 : Job.NONE,
        purgeAtMs, null);
  }

  @Nested
  class Recover {
    @Test
    void putsAStoredReadyJobInTheReadyIndex() {
      JobSnapshot ready = stored(JobStatus.READY, h.nowMs() - 1_000);

      h.recover(ready);
      h.openWorker("a", 0);

      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(ready.id());
    }

    @Test
    void ordersRecoveredJobsByPriorityThenId() {
      JobSnapshot low = stored(JobStatus.READY, h.nowMs(), 9);
      JobSnapshot older = stored(JobStatus.READY, h.nowMs(), 1);
      JobSnapshot newer = stored(JobStatus.READY, h.nowMs(), 1);

      h.recover(newer, low, older);
      h.openWorker("a", 0);

      assertThat(h.dispatch())
          .extracting(JobSnapshot::id)
          .containsExactly(older.id(), newer.id(), low.id());
    }

    @Test
    void returnsAJobThatWasInFlightToReadyWithItsAttemptsKept() {
      JobSnapshot s = stored(JobStatus.IN_FLIGHT, h.nowMs() - 5_000);
      JobSnapshot inFlight = new JobSnapshot(s.id(), s.type(), s.queue(), s.priority(),
          s.status(), s.readyAtMs(), 3, null, null, null, h.nowMs() - 2_000, h.nowMs() - 4_000,
          Job.NONE, Job.NONE, null);

      h.recover(inFlight);

      JobSnapshot recovered = h.get(inFlight.id());
      assertThat(recovered.status()).isEqualTo(JobStatus.READY);
      assertThat(recovered.attempts()).isEqualTo(3);
      assertThat(recovered.dequeuedAtMs()).isEqualTo(inFlight.dequeuedAtMs());
      h.openWorker("a", 0);
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(inFlight.id());
    }

    @Test
    void keepsAScheduledJobWaitingUntilItsReadyAt() {
      long readyAtMs = h.nowMs() + 8_000;
      JobSnapshot scheduled = stored(JobStatus.SCHEDULED, readyAtMs);

      h.recover(scheduled);
      h.openWorker("a", 0);

      assertThat(h.get(scheduled.id()).status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(readyAtMs);
      h.advanceMs(7_999);
      assertThat(h.dispatch()).isEmpty();
      h.advanceMs(1);
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(scheduled.id());
    }

    @Test
    void makesAScheduledJobThatFellDueWhileStoppedReadyAtOnce() {
      JobSnapshot overdue = stored(JobStatus.SCHEDULED, h.nowMs() - 1);

      h.recover(overdue);

      assertThat(h.get(overdue.id()).status()).isEqualTo(JobStatus.READY);
    }

    @Test
    void retainsATerminalJobUntilItsPurgeAtThenReapsIt() {
      JobSnapshot completed = terminal(JobStatus.COMPLETED, h.nowMs() + 10_000);

      h.recover(completed);
      h.openWorker((Set<String>) null, 0);

      assertThat(h.get(completed.id())).isEqualTo(completed);
      assertThat(h.dispatch()).isEmpty();
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(completed.purgeAtMs());

      h.advanceMs(10_000);
      h.runDue();
      assertThat(h.lastTurn()).containsExactly(new Mutation.DeleteJob(completed.id(), 2));
    }

    @Test
    void keepsADeadJobVisibleAndUndispatchable() {
      JobSnapshot dead = terminal(JobStatus.DEAD, h.nowMs() + 10_000);

      h.recover(dead);
      h.openWorker((Set<String>) null, 0);

      assertThat(h.get(dead.id()).status()).isEqualTo(JobStatus.DEAD);
      assertThat(h.dispatch()).isEmpty();
    }

    @Test
    void hidesATerminalJobWhosePurgeAtPassedWhileStopped() {
      JobSnapshot expired = terminal(JobStatus.DEAD, h.nowMs() - 1);

      h.recover(expired);

      JobId id = expired.id();
      assertThatThrownBy(() -> h.get(id)).isInstanceOf(SluiceException.NotFound.class);
      h.runDue();
      assertThat(h.lastTurn()).containsExactly(new Mutation.DeleteJob(id, 2));
    }

    @Test
    void keepsEveryOptionalFieldOfTheStoredRecord() {
      JobSnapshot s = stored(JobStatus.SCHEDULED, h.nowMs() + 1_000);
      JobSnapshot withOverrides = new JobSnapshot(s.id(), s.type(), s.queue(), 7, s.status(),
          s.readyAtMs(), 1, 4, new BackoffPolicy(100, 1.5f, 10),
          new RetentionPolicy(5_000L, null), h.nowMs() - 9_000, h.nowMs() - 8_000, Job.NONE,
          Job.NONE, null);

      h.recover(withOverrides);

      assertThat(h.get(s.id())).isEqualTo(withOverrides);
    }
  }
}

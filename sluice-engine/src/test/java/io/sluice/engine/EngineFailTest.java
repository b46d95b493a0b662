package io.sluice.engine;

import static io.sluice.engine.EngineHarness.failure;
import static io.sluice.engine.EngineHarness.failureRetryingAt;
import static io.sluice.engine.EngineHarness.failureWithJitter;
import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.killingFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.Mutation;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Failure reports: attempts, error records, retry limit, kill, retry_at and backoff (§4.3). */
class EngineFailTest {
  private static final long DEAD_RETENTION_MS = EngineConfig.DEFAULT_DEAD_RETENTION_MS;

  private final EngineHarness h = EngineHarness.create();

  /** Enqueues one job on queue "a" and has a prefetch-1 worker take it. */
  private JobSnapshot takeOne(EngineHarness.JobSpec spec) {
    JobSnapshot created = h.enqueue(spec);
    h.openWorker("a", 1);
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(created.id());
    return created;
  }

  /** Waits until the retried job's ready_at and takes it again. */
  private void redeliver(JobSnapshot retried) {
    h.advanceMs(retried.readyAtMs() - h.nowMs());
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(retried.id());
  }

  @Nested
  class Fail {
    @Test
    void incrementsAttemptsAndWritesAnErrorRecord() {
      JobSnapshot job = takeOne(job("a"));
      long dequeuedAtMs = h.nowMs();
      h.advanceMs(250);

      JobSnapshot failed = h.fail(job.id(),
          new FailureReport("smtp timeout", "TimeoutError", "at line 3", null, false, 0.0));

      assertThat(failed.attempts()).isEqualTo(1);
      assertThat(failed.failedAtMs()).isEqualTo(h.nowMs());
      assertThat(h.lastTurn()).contains(new Mutation.PutError(job.id(), new ErrorRecord(
          1, "smtp timeout", "TimeoutError", "at line 3", dequeuedAtMs, h.nowMs())));
      assertThat(h.lastTurn()).contains(new Mutation.PutJob(failed));
    }

    @Test
    void numbersErrorRecordsByTheAttemptThatFailed() {
      JobSnapshot job = takeOne(job("a"));
      redeliver(h.fail(job.id()));
      h.fail(job.id(), failure("second"));

      assertThat(h.mutations(Mutation.PutError.class))
          .extracting(put -> put.error().attempt(), put -> put.error().message())
          .containsExactly(
              tuple(1, "boom"),
              tuple(2, "second"));
    }

    @Test
    void schedulesTheRetryAfterTheDefaultBackoff() {
      JobSnapshot job = takeOne(job("a"));

      JobSnapshot failed = h.fail(job.id());

      assertThat(failed.status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(failed.readyAtMs()).isEqualTo(h.nowMs() + 16_000);
      assertThat(h.get(job.id()).status()).isEqualTo(JobStatus.SCHEDULED);
    }

    @Test
    void addsTheJitterChosenAtTheEdge() {
      JobSnapshot job = takeOne(job("a"));

      JobSnapshot failed = h.fail(job.id(), failureWithJitter(0.5));

      assertThat(failed.readyAtMs()).isEqualTo(h.nowMs() + 15_000 + 1_000 + 15_000);
    }

    @Test
    void usesTheJobsOwnBackoff() {
      JobSnapshot job = takeOne(job("a").backoff(new BackoffPolicy(500, 2f, 0)));
      redeliver(h.fail(job.id()));

      JobSnapshot failed = h.fail(job.id());

      assertThat(failed.readyAtMs()).isEqualTo(h.nowMs() + 500 + 4_000);
    }

    @Test
    void redispatchesTheRetriedJobAtExactlyItsReadyAt() {
      JobSnapshot job = takeOne(job("a"));
      h.fail(job.id());

      h.advanceMs(15_999);
      assertThat(h.dispatch()).isEmpty();

      h.advanceMs(1);
      JobSnapshot again = h.dispatch().get(0);
      assertThat(again.id()).isEqualTo(job.id());
      assertThat(again.attempts()).isEqualTo(1);
      assertThat(again.status()).isEqualTo(JobStatus.IN_FLIGHT);
    }

    @Test
    void freesThePrefetchSlotOfTheFailedJob() {
      h.enqueue(2, "a");
      h.openWorker("a", 1);
      JobSnapshot first = h.dispatch().get(0);

      h.fail(first.id());

      assertThat(h.dispatch()).hasSize(1).noneMatch(j -> j.id().equals(first.id()));
    }

    @Test
    void rejectsAJobThatIsNotInFlight() {
      JobSnapshot queued = h.enqueue("a");

      assertThatThrownBy(() -> h.fail(queued.id()))
          .isInstanceOf(SluiceException.NotFound.class)
          .hasMessage("job not found in in-flight set");
      assertThatThrownBy(() -> h.fail(new JobId(1, 2)))
          .isInstanceOf(SluiceException.NotFound.class);
    }
  }

  @Nested
  class RetryLimit {
    @Test
    void allowsThreeRetriesAndKillsOnTheFourthFailureWhenTheLimitIsThree() {
      JobSnapshot job = takeOne(job("a").retryLimit(3));

      for (int failure = 1; failure <= 3; failure++) {
        JobSnapshot retried = h.fail(job.id());
        assertThat(retried.status()).as("failure %d", failure).isEqualTo(JobStatus.SCHEDULED);
        redeliver(retried);
      }
      JobSnapshot dead = h.fail(job.id());

      assertThat(dead.status()).isEqualTo(JobStatus.DEAD);
      assertThat(dead.attempts()).isEqualTo(4);
    }

    @Test
    void killsOnTheFirstFailureWhenTheLimitIsZero() {
      JobSnapshot job = takeOne(job("a").retryLimit(0));

      JobSnapshot dead = h.fail(job.id());

      assertThat(dead.status()).isEqualTo(JobStatus.DEAD);
      assertThat(dead.attempts()).isEqualTo(1);
    }

    @Test
    void retriesTwentyFiveTimesOverAboutTwentyFiveDaysByDefault() {
      JobSnapshot job = takeOne(job("a"));
      long firstFailureMs = h.nowMs();

      for (int failure = 1; failure <= 25; failure++) {
        redeliver(h.fail(job.id()));
      }
      long lastRetryMs = h.nowMs();
      JobSnapshot dead = h.fail(job.id());

      assertThat(dead.status()).isEqualTo(JobStatus.DEAD);
      assertThat(dead.attempts()).isEqualTo(26);
      assertThat(lastRetryMs - firstFailureMs)
          .isBetween(Duration.ofDays(24).toMillis(), Duration.ofDays(26).toMillis());
    }
  }

  @Nested
  class Kill {
    @Test
    void killsAJobWithRetriesLeft() {
      JobSnapshot job = takeOne(job("a"));

      JobSnapshot dead = h.fail(job.id(), killingFailure());

      assertThat(dead.status()).isEqualTo(JobStatus.DEAD);
      assertThat(dead.attempts()).isEqualTo(1);
      assertThat(dead.purgeAtMs()).isEqualTo(h.nowMs() + DEAD_RETENTION_MS);
      assertThat(h.get(job.id()).status()).isEqualTo(JobStatus.DEAD);
      assertThat(h.lastTurn()).contains(new Mutation.PutJob(dead));
      assertThat(h.lastTurn()).hasAtLeastOneElementOfType(Mutation.PutError.class);
    }

    @Test
    void winsOverRetryAt() {
      JobSnapshot job = takeOne(job("a"));

      JobSnapshot dead = h.fail(job.id(),
          new FailureReport("boom", null, null, h.nowMs() + 1_000, true, 0.0));

      assertThat(dead.status()).isEqualTo(JobStatus.DEAD);
    }

    @Test
    void neverDispatchesADeadJobAgain() {
      JobSnapshot job = takeOne(job("a"));
      JobSnapshot dead = h.fail(job.id(), killingFailure());

      h.advance(Duration.ofDays(1));

      assertThat(h.dispatch()).isEmpty();
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(dead.purgeAtMs());
    }
  }

  @Nested
  class RetryAt {
    @Test
    void overridesTheBackoff() {
      JobSnapshot job = takeOne(job("a"));
      long retryAtMs = h.nowMs() + 3_000;

      JobSnapshot failed = h.fail(job.id(), failureRetryingAt(retryAtMs));

      assertThat(failed.status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(failed.readyAtMs()).isEqualTo(retryAtMs);
      h.advanceMs(2_999);
      assertThat(h.dispatch()).isEmpty();
      h.advanceMs(1);
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(job.id());
    }

    @Test
    void retriesEvenBeyondTheRetryLimit() {
      JobSnapshot job = takeOne(job("a").retryLimit(0));
      long retryAtMs = h.nowMs() + 10_000;

      JobSnapshot failed = h.fail(job.id(), failureRetryingAt(retryAtMs));

      assertThat(failed.status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(failed.attempts()).isEqualTo(1);
      assertThat(failed.readyAtMs()).isEqualTo(retryAtMs);
    }

    @Test
    void makesTheJobReadyAtOnceWhenRetryAtIsNotInTheFuture() {
      JobSnapshot job = takeOne(job("a"));

      h.fail(job.id(), failureRetryingAt(h.nowMs() - 1_000));

      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(job.id());
    }

    @Test
    void reportsAndStoresScheduledWhenRetryAtIsNotInTheFuture() {
      JobSnapshot job = takeOne(job("a"));

      JobSnapshot failed = h.fail(job.id(), failureRetryingAt(h.nowMs()));

      assertThat(failed.status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(h.lastTurn()).filteredOn(Mutation.PutJob.class::isInstance)
          .extracting(m -> ((Mutation.PutJob) m).job().status())
          .containsExactly(JobStatus.SCHEDULED);
    }
  }

  @Test
  void leavesTheCompletedTimeUnsetOnADeadJob() {
    JobSnapshot job = takeOne(job("a"));

    assertThat(h.fail(job.id(), killingFailure()).completedAtMs()).isEqualTo(Job.NONE);
  }
}

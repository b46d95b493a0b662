package io.sluice.engine;

import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.killingFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.store.Mutation;
import java.util.Arrays;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Terminal jobs: deleted at once, or retained until purge_at then reaped (API.md §4.4). */
class EngineRetentionTest {
  private static final long REAPER_INTERVAL_MS = EngineConfig.DEFAULT_REAPER_INTERVAL_MS;

  private EngineHarness h = EngineHarness.create();

  private static EngineConfig withDefaultRetention(long completedMs, long deadMs) {
    return new EngineConfig(
        EngineConfig.DEFAULT_RETRY_LIMIT,
        BackoffPolicy.DEFAULT,
        completedMs,
        deadMs,
        EngineConfig.DEFAULT_GLOBAL_IN_FLIGHT_LIMIT,
        REAPER_INTERVAL_MS,
        EngineConfig.DEFAULT_SCHEDULER_BATCH_SIZE,
        EngineConfig.DEFAULT_PAYLOAD_CACHE_BYTES);
  }

  /** Enqueues one job on queue "a" and has a worker take it. */
  private JobId takeOne(EngineHarness.JobSpec spec) {
    JobId id = h.enqueue(spec).id();
    h.openWorker("a", 0);
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(id);
    return id;
  }

  private void assertInvisible(JobId id) {
    assertThatThrownBy(() -> h.get(id))
        .isInstanceOf(SluiceException.NotFound.class)
        .hasMessage("job not found");
  }

  @Nested
  class Complete {
    @Test
    void deletesTheJobAtOnceWhenCompletedRetentionIsZero() {
      JobId id = takeOne(job("a"));

      h.ack(id);

      assertThat(h.lastTurn()).containsExactly(new Mutation.DeleteJob(id, 0));
      assertInvisible(id);
      assertThat(h.engine().jobCount()).isZero();
    }

    @Test
    void deletesTheErrorRecordsOfARetriedJobWithIt() {
      JobId id = takeOne(job("a"));
      h.fail(id, EngineHarness.failureRetryingAt(h.nowMs()));
      h.dispatch();

      h.ack(id);

      assertThat(h.lastTurn()).containsExactly(new Mutation.DeleteJob(id, 1));
    }

    @Test
    void retainsACompletedJobForItsOwnRetention() {
      JobId id = takeOne(job("a").retention(new RetentionPolicy(60_000L, null)));
      long completedAtMs = h.nowMs();

      h.ack(id);

      JobSnapshot completed = h.get(id);
      assertThat(completed.status()).isEqualTo(JobStatus.COMPLETED);
      assertThat(completed.completedAtMs()).isEqualTo(completedAtMs);
      assertThat(completed.purgeAtMs()).isEqualTo(completedAtMs + 60_000);
      assertThat(h.lastTurn()).containsExactly(new Mutation.PutJob(completed));
    }

    @Test
    void retainsACompletedJobForTheServerDefault() {
      h = EngineHarness.create(withDefaultRetention(60_000, 0));
      JobId id = takeOne(job("a"));

      h.ack(id);

      assertThat(h.get(id).status()).isEqualTo(JobStatus.COMPLETED);
      assertThat(h.get(id).purgeAtMs()).isEqualTo(h.nowMs() + 60_000);
    }

    @Test
    void letsAJobsZeroRetentionOverrideTheServerDefault() {
      h = EngineHarness.create(withDefaultRetention(60_000, 0));
      JobId id = takeOne(job("a").retention(new RetentionPolicy(0L, null)));

      h.ack(id);

      assertInvisible(id);
    }

    @Test
    void fallsBackToTheServerDefaultForAnUnsetRetentionField() {
      JobId id = takeOne(job("a").retention(new RetentionPolicy(null, 5_000L)));

      h.ack(id);

      assertInvisible(id);
    }

    @Test
    void hidesARetainedJobFromExactlyItsPurgeAtEvenBeforeTheReaperRuns() {
      JobId id = takeOne(job("a").retention(new RetentionPolicy(60_000L, null)));
      h.ack(id);

      h.advanceMs(59_999);
      assertThat(h.get(id).status()).isEqualTo(JobStatus.COMPLETED);

      h.advanceMs(1);
      assertInvisible(id);
      assertThat(h.mutations(Mutation.DeleteJob.class)).isEmpty();
    }
  }

  @Nested
  class Fail {
    @Test
    void retainsADeadJobForTheDefaultSevenDays() {
      JobId id = takeOne(job("a"));

      JobSnapshot dead = h.fail(id, killingFailure());

      assertThat(dead.status()).isEqualTo(JobStatus.DEAD);
      assertThat(dead.purgeAtMs()).isEqualTo(h.nowMs() + 604_800_000L);
    }

    @Test
    void retainsADeadJobForItsOwnRetentionThenHidesIt() {
      JobId id = takeOne(job("a").retryLimit(0).retention(new RetentionPolicy(null, 5_000L)));
      long diedAtMs = h.nowMs();

      JobSnapshot dead = h.fail(id);

      assertThat(dead.status()).isEqualTo(JobStatus.DEAD);
      assertThat(dead.failedAtMs()).isEqualTo(diedAtMs);
      assertThat(dead.completedAtMs()).isEqualTo(Job.NONE);
      assertThat(dead.purgeAtMs()).isEqualTo(diedAtMs + 5_000);
      h.advanceMs(4_999);
      assertThat(h.get(id).status()).isEqualTo(JobStatus.DEAD);
      h.advanceMs(1);
      assertInvisible(id);

      h.runDue();

      assertThat(h.lastTurn()).containsExactly(new Mutation.DeleteJob(id, 1));
    }

    @Test
    void deletesADeadJobAtOnceWhenDeadRetentionIsZeroButStillReportsItDead() {
      JobId id = takeOne(job("a").retryLimit(0).retention(new RetentionPolicy(null, 0L)));

      JobSnapshot dead = h.fail(id);

      assertThat(dead.status()).isEqualTo(JobStatus.DEAD);
      assertThat(dead.purgeAtMs()).isEqualTo(Job.NONE);
      assertThat(h.lastTurn()).last().isEqualTo(new Mutation.DeleteJob(id, 1));
      assertInvisible(id);
    }

    @Test
    void usesTheServerDefaultDeadRetention() {
      h = EngineHarness.create(withDefaultRetention(0, 0));
      JobId id = takeOne(job("a"));

      h.fail(id, killingFailure());

      assertThat(h.lastTurn()).last().isEqualTo(new Mutation.DeleteJob(id, 1));
      assertInvisible(id);
    }
  }

  @Nested
  class RunDue {
    @Test
    void physicallyRemovesAnExpiredJob() {
      JobId id = takeOne(job("a").retention(new RetentionPolicy(60_000L, null)));
      h.ack(id);
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(h.nowMs() + 60_000);

      h.advanceMs(59_999);
      h.runDue();
      assertThat(h.lastTurn()).isEmpty();

      h.advanceMs(1);
      h.runDue();
      assertThat(h.lastTurn()).containsExactly(new Mutation.DeleteJob(id, 0));
      assertThat(h.engine().jobCount()).isZero();
      assertThat(h.engine().nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void reapsAtMostOncePerReaperInterval() {
      JobId early = takeOne(job("a").retention(new RetentionPolicy(60_000L, null)));
      JobId late = h.enqueue(job("a").retention(new RetentionPolicy(70_000L, null))).id();
      h.dispatch();
      long completedAtMs = h.nowMs();
      h.ack(early);
      h.ack(late);

      h.advanceMs(60_000);
      h.runDue();
      assertThat(h.lastTurn()).containsExactly(new Mutation.DeleteJob(early, 0));

      h.advanceMs(10_000);
      h.runDue();
      assertInvisible(late);
      assertThat(h.lastTurn()).isEmpty();
      assertThat(h.engine().nextDeadlineMs())
          .isEqualTo(completedAtMs + 60_000 + REAPER_INTERVAL_MS);

      h.advanceMs(REAPER_INTERVAL_MS - 10_000);
      h.runDue();
      assertThat(h.lastTurn()).containsExactly(new Mutation.DeleteJob(late, 0));
    }

    @Test
    void reapsALargeBacklogInBatchesWithoutWaitingForTheInterval() {
      EngineHarness.JobSpec[] specs = new EngineHarness.JobSpec[1_001];
      Arrays.setAll(specs, i -> job("a").retention(new RetentionPolicy(1_000L, null)));
      h.enqueue(specs);
      EngineHarness.Worker worker = h.openWorker("a", 1_001);
      h.dispatch();
      worker.receivedIds().forEach(h::ack);
      h.advanceMs(1_000);

      h.runDue();
      assertThat(h.lastTurn()).hasSize(1_000);
      assertThat(h.engine().nextDeadlineMs()).isLessThanOrEqualTo(h.nowMs());

      h.runDue();
      assertThat(h.lastTurn()).hasSize(1);
      assertThat(h.engine().jobCount()).isZero();
    }

    @Test
    void reapsDuringTheDispatchStepOfATurn() {
      JobId id = takeOne(job("a").retention(new RetentionPolicy(1_000L, null)));
      h.ack(id);
      h.advanceMs(1_000);

      h.dispatch();

      assertThat(h.lastTurn()).containsExactly(new Mutation.DeleteJob(id, 0));
    }
  }
}

package io.sluice.engine.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.EngineHarness;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * What every {@link JobStore} must do, stated through the interface alone. An implementation's
 * test extends this class and supplies {@link #open()} and {@link #reopen()}; each test gets a
 * store over empty data, and closes it at the end.
 */
public abstract class JobStoreContract {
  private static final long T0 = 1_700_000_000_000L;

  private final JobIdGenerator ids = new JobIdGenerator();
  private JobStore store;

  /** A new store over empty data; called once before each test. */
  protected abstract JobStore open();

  /**
   * Closes the store last returned by {@link #open()} or {@code reopen()}, and returns a new one
   * over the same data, as a restarted server would open it.
   */
  protected abstract JobStore reopen();

  @BeforeEach
  void openStore() {
    store = open();
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private void restart() {
    store = reopen();
  }

  private void commit(Mutation... mutations) {
    store.commit(new CommitBatch(List.of(mutations), false));
  }

  private List<JobSnapshot> scan() {
    List<JobSnapshot> found = new ArrayList<>();
    store.scanJobs(found::add);
    return found;
  }

  private JobSnapshot plainJob(JobId id) {
    return new JobSnapshot(id, "send_email", "emails", 32768, JobStatus.READY, T0, 0, null, null,
        null, Job.NONE, Job.NONE, Job.NONE, Job.NONE, null);
  }

  private JobSnapshot jobWithEveryField(JobId id) {
    return new JobSnapshot(id, "résumé_ünïcode", "q:☃", 7, JobStatus.COMPLETED, T0 + 1, 4, 9,
        new BackoffPolicy(1_500, 2.5f, 250), new RetentionPolicy(60_000L, 3_600_000L), T0 + 2,
        T0 + 3, T0 + 4, T0 + 60_004, null);
  }

  private static ErrorRecord error(int attempt) {
    return new ErrorRecord(
        attempt, "failure " + attempt, null, null, T0 + attempt, T0 + attempt + 1);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static List<Integer> attempts(List<ErrorRecord> records) {
    return records.stream().map(ErrorRecord::attempt).toList();
  }

  @Nested
  class ScanJobs {
    @Test
    void returnsTheCommittedJobRecordsAfterReopening() {
      JobSnapshot plain = plainJob(ids.next(T0));
      JobSnapshot full = jobWithEveryField(ids.next(T0));
      commit(new Mutation.PutJob(plain), new Mutation.PutJob(full));

      restart();

      assertThat(scan()).containsExactly(plain, full);
    }

    @Test
    void roundTripsEachOptionalFieldOnItsOwn() {
      JobId a = ids.next(T0);
      JobId b = ids.next(T0);
      JobId c = ids.next(T0);
      JobSnapshot onlyRetryLimit = new JobSnapshot(a, "t", "q", 0, JobStatus.SCHEDULED, T0, 0, 0,
          null, null, Job.NONE, Job.NONE, Job.NONE, Job.NONE, null);
      JobSnapshot onlyCompletedRetention = new JobSnapshot(b, "t", "q", 65535, JobStatus.DEAD, T0,
          26, null, null, new RetentionPolicy(0L, null), T0, T0, Job.NONE, T0 + 5, null);
      JobSnapshot onlyDeadRetentionAndBackoff = new JobSnapshot(c, "t", "q", 1,
          JobStatus.IN_FLIGHT, Long.MAX_VALUE, 1, null, new BackoffPolicy(0, 0f, 0),
          new RetentionPolicy(null, Long.MAX_VALUE), T0, Job.NONE, Job.NONE, Job.NONE, null);
      commit(new Mutation.PutJob(onlyRetryLimit), new Mutation.PutJob(onlyCompletedRetention),
          new Mutation.PutJob(onlyDeadRetentionAndBackoff));

      restart();

      assertThat(scan())
          .containsExactly(onlyRetryLimit, onlyCompletedRetention, onlyDeadRetentionAndBackoff);
    }

    @Test
    void feedsJobsInIdOrderWhateverTheCommitOrder() {
      JobSnapshot first = plainJob(ids.next(T0));
      JobSnapshot second = plainJob(ids.next(T0 + 1));
      JobSnapshot third = plainJob(ids.next(T0 + 1_000_000));
      commit(new Mutation.PutJob(third));
      commit(new Mutation.PutJob(first), new Mutation.PutJob(second));

      assertThat(scan()).containsExactly(first, second, third);
    }

    @Test
    void keepsOnlyTheLatestVersionOfAJob() {
      JobSnapshot ready = plainJob(ids.next(T0));
      commit(new Mutation.PutJob(ready));

      JobSnapshot completed = ready.withStatus(JobStatus.COMPLETED);
      store.commit(new CommitBatch(List.of(new Mutation.PutJob(completed)), true));
      restart();

      assertThat(scan()).containsExactly(completed);
    }

    @Test
    void findsNothingInAnEmptyStore() {
      assertThat(scan()).isEmpty();
    }
  }

  @Nested
  class ReadPayload {
    @Test
    void returnsTheStoredBytesAfterReopening() {
      JobId id = ids.next(T0);
      commit(new Mutation.PutJob(plainJob(id)),
          new Mutation.PutPayload(id, utf8("{\"to\":\"ada@example.com\"}")));

      restart();

      assertThat(store.readPayload(id)).asString(StandardCharsets.UTF_8)
          .isEqualTo("{\"to\":\"ada@example.com\"}");
    }

    @Test
    void returnsNullForAJobWithoutPayload() {
      assertThat(store.readPayload(ids.next(T0))).isNull();
    }
  }

  @Nested
  class ReadErrors {
    private JobId before;
    private JobId id;
    private JobId after;

    /** Five records for {@code id}, with neighbours on both sides that must never leak in. */
    @BeforeEach
    void storeErrors() {
      before = ids.next(T0);
      id = ids.next(T0);
      after = ids.next(T0);
      List<Mutation> mutations = new ArrayList<>();
      for (int attempt = 1; attempt <= 5; attempt++) {
        mutations.add(new Mutation.PutError(before, error(attempt)));
        mutations.add(new Mutation.PutError(id, error(attempt)));
        mutations.add(new Mutation.PutError(after, error(attempt)));
      }
      store.commit(new CommitBatch(mutations, true));
      restart();
    }

    @Test
    void listsEveryRecordInAscendingAttemptOrder() {
      List<ErrorRecord> records = store.readErrors(id, 0, false, 100);

      assertThat(records).containsExactly(error(1), error(2), error(3), error(4), error(5));
    }

    @Test
    void listsAscendingAfterTheGivenAttemptUpToTheLimit() {
      assertThat(attempts(store.readErrors(id, 2, false, 2))).containsExactly(3, 4);
      assertThat(attempts(store.readErrors(id, 4, false, 10))).containsExactly(5);
      assertThat(store.readErrors(id, 5, false, 10)).isEmpty();
    }

    @Test
    void listsEveryRecordNewestFirstWhenDescendingFromZero() {
      assertThat(attempts(store.readErrors(id, 0, true, 100))).containsExactly(5, 4, 3, 2, 1);
    }

    @Test
    void listsDescendingBeforeTheGivenAttemptUpToTheLimit() {
      assertThat(attempts(store.readErrors(id, 4, true, 2))).containsExactly(3, 2);
      assertThat(attempts(store.readErrors(id, 2, true, 10))).containsExactly(1);
      assertThat(store.readErrors(id, 1, true, 10)).isEmpty();
    }

    @Test
    void listsDescendingFromBeyondTheLastAttempt() {
      assertThat(attempts(store.readErrors(id, 100, true, 2))).containsExactly(5, 4);
    }

    @Test
    void findsNoRecordsForAJobWithoutFailures() {
      JobId between = new JobId(id.hi(), id.lo() + 1);

      assertThat(store.readErrors(between, 0, false, 10)).isEmpty();
      assertThat(store.readErrors(between, 0, true, 10)).isEmpty();
    }

    @Test
    void findsNothingAscendingAfterTheLargestAttemptNumber() {
      assertThat(store.readErrors(id, 0xFFFFFFFFL, false, 10)).isEmpty();
    }

    @Test
    void readsOneRecordByAttempt() {
      assertThat(store.readError(id, 3)).isEqualTo(error(3));
      assertThat(store.readError(id, 6)).isNull();
      assertThat(store.readError(id, 0)).isNull();
    }

    @Test
    void roundTripsTheOptionalTexts() {
      JobId failing = ids.next(T0 + 10);
      ErrorRecord full = new ErrorRecord(1, "smtp timeout ☃", "TimeoutError",
          "at Mailer.send(Mailer.java:42)\n\tat Worker.run", T0, T0 + 5);
      commit(new Mutation.PutError(failing, full));

      restart();

      assertThat(store.readError(failing, 1)).isEqualTo(full);
    }
  }

  @Nested
  class DeleteJob {
    @Test
    void removesTheJobItsPayloadAndItsErrorRecords() {
      JobId doomed = ids.next(T0);
      JobId kept = ids.next(T0);
      commit(new Mutation.PutJob(plainJob(doomed)), new Mutation.PutPayload(doomed, utf8("{}")),
          new Mutation.PutError(doomed, error(1)), new Mutation.PutError(doomed, error(2)),
          new Mutation.PutJob(plainJob(kept)), new Mutation.PutPayload(kept, utf8("[]")),
          new Mutation.PutError(kept, error(1)));

      commit(new Mutation.DeleteJob(doomed, 2));
      restart();

      assertThat(scan()).extracting(JobSnapshot::id).containsExactly(kept);
      assertThat(store.readPayload(doomed)).isNull();
      assertThat(store.readErrors(doomed, 0, false, 10)).isEmpty();
      assertThat(store.readError(doomed, 1)).isNull();
      assertThat(store.readPayload(kept)).asString(StandardCharsets.UTF_8).isEqualTo("[]");
      assertThat(store.readErrors(kept, 0, false, 10)).containsExactly(error(1));
    }

    @Test
    void appliesTheMutationsOfOneBatchInOrder() {
      JobId diedAtOnce = ids.next(T0);
      JobId recreated = ids.next(T0);

      // A job that dies with zero retention writes its error record and deletes it in one turn.
      commit(new Mutation.PutJob(plainJob(diedAtOnce)), new Mutation.PutError(diedAtOnce,
          error(1)), new Mutation.DeleteJob(diedAtOnce, 1),
          new Mutation.DeleteJob(recreated, 0), new Mutation.PutJob(plainJob(recreated)));

      assertThat(scan()).extracting(JobSnapshot::id).containsExactly(recreated);
      assertThat(store.readError(diedAtOnce, 1)).isNull();
    }
  }

  @Nested
  class WithTheEngine {
    @Test
    void recoversWhatTheEngineCommitted() {
      EngineHarness h = EngineHarness.create();
      JobSnapshot retried = h.enqueue(EngineHarness.job("a").retryLimit(5));
      JobSnapshot waiting = h.enqueue("b");
      h.openWorker("a", 1);
      h.dispatch();
      h.fail(retried.id(), EngineHarness.failure("timeout"));
      store.commit(new CommitBatch(h.mutations(), true));
      restart();

      Engine restarted = new Engine(EngineConfig.defaults());
      store.scanJobs(job -> restarted.recover(job, h.nowMs()));

      JobSnapshot recovered = restarted.get(retried.id(), h.nowMs());
      assertThat(recovered).isEqualTo(h.get(retried.id()));
      assertThat(recovered.status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(restarted.nextDeadlineMs()).isEqualTo(recovered.readyAtMs());
      assertThat(restarted.get(waiting.id(), h.nowMs()).status()).isEqualTo(JobStatus.READY);
      assertThat(store.readPayload(waiting.id())).asString(StandardCharsets.UTF_8).isEqualTo("{}");
      assertThat(store.readErrors(retried.id(), 0, false, 10))
          .extracting(ErrorRecord::message)
          .containsExactly("timeout");
    }
  }
}

package io.sluice.engine.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The fields most jobs leave at their defaults read back as set, however often they change. */
class JobTest {
  private static final JobId ID = new JobId(1_700_000_000_000L, 42);
  private static final byte[] PAYLOAD = "{\"n\":1}".getBytes();

  @Test
  void aPlainJobReadsEveryDefault() {
    Job job = plain();

    assertThat(job.errorRecords()).isZero();
    assertThat(job.retryLimit()).isNull();
    assertThat(job.backoff()).isNull();
    assertThat(job.retention()).isNull();
    assertThat(job.failedAtMs()).isEqualTo(Job.NONE);
    assertThat(job.completedAtMs()).isEqualTo(Job.NONE);
    assertThat(job.purgeAtMs()).isEqualTo(Job.NONE);
    assertThat(job.unique()).isNull();
    assertThat(job.batch()).isNull();
    assertThat(job.isPurgedAt(Long.MAX_VALUE)).isFalse();
  }

  @Test
  void uncommonFieldsReadBackAsSetAndReset() {
    Job job = plain();
    BackoffPolicy backoff = new BackoffPolicy(10, 2.0f, 5);
    RetentionPolicy retention = new RetentionPolicy(1_000L, null);
    UniqueKey unique = new UniqueKey("k", UniqueKey.Scope.QUEUED);
    BatchConfig batch = new BatchConfig("b", null, null);

    job.errorRecords(3);
    job.retryLimit(7);
    job.backoff(backoff);
    job.retention(retention);
    job.failedAtMs(11);
    job.completedAtMs(12);
    job.purgeAtMs(13);
    job.unique(unique);
    job.batch(batch);

    assertThat(job.errorRecords()).isEqualTo(3);
    assertThat(job.retryLimit()).isEqualTo(7);
    assertThat(job.backoff()).isEqualTo(backoff);
    assertThat(job.retention()).isEqualTo(retention);
    assertThat(job.failedAtMs()).isEqualTo(11);
    assertThat(job.completedAtMs()).isEqualTo(12);
    assertThat(job.purgeAtMs()).isEqualTo(13);
    assertThat(job.unique()).isEqualTo(unique);
    assertThat(job.batch()).isEqualTo(batch);
    assertThat(job.isPurgedAt(12)).isFalse();
    assertThat(job.isPurgedAt(13)).isTrue();

    job.errorRecords(0);
    job.retryLimit(null);
    job.backoff(null);
    job.retention(new RetentionPolicy(null, null));
    job.failedAtMs(Job.NONE);
    job.completedAtMs(Job.NONE);
    job.purgeAtMs(Job.NONE);
    job.unique(null);
    job.batch(null);

    assertThat(job.snapshot(true)).isEqualTo(plain().snapshot(true));
  }

  @Test
  void settingOneUncommonFieldLeavesTheOthersAtTheirDefaults() {
    Job job = plain();
    job.retryLimit(3);

    assertThat(job.retryLimit()).isEqualTo(3);
    assertThat(job.failedAtMs()).isEqualTo(Job.NONE);
    assertThat(job.errorRecords()).isZero();
    assertThat(job.backoff()).isNull();
    assertThat(job.retention()).isNull();
    assertThat(job.unique()).isNull();
    assertThat(job.batch()).isNull();
    assertThat(job.snapshot(true)).isEqualTo(withRetryLimit(plain().snapshot(true), 3));
  }

  private static JobSnapshot withRetryLimit(JobSnapshot s, Integer retryLimit) {
    return new JobSnapshot(s.id(), s.type(), s.queue(), s.priority(), s.status(), s.readyAtMs(),
        s.attempts(), retryLimit, s.backoff(), s.retention(), s.dequeuedAtMs(), s.failedAtMs(),
        s.completedAtMs(), s.purgeAtMs(), s.payload(), s.budgets(), s.unique(), s.batch(),
        s.errorRecords());
  }

  @Test
  void aSnapshotRoundTripsEveryField() {
    JobSnapshot full = new JobSnapshot(ID, "t", "q", 3, JobStatus.DEAD, 100, 4, 9,
        new BackoffPolicy(1, 1.5f, 2), new RetentionPolicy(null, 60_000L), 101, 102, 103, 104,
        PAYLOAD, List.of(), new UniqueKey("u", UniqueKey.Scope.QUEUED),
        new BatchConfig("b", "w", "f"), 6);
    // An empty retention from a snapshot is kept as it came, as before.
    JobSnapshot emptyRetention = new JobSnapshot(ID, "t", "q", 0, JobStatus.READY, 100, 0, null,
        null, new RetentionPolicy(null, null), Job.NONE, Job.NONE, Job.NONE, Job.NONE, PAYLOAD,
        List.of(), null, null, 0);
    JobSnapshot plain = plain().snapshot(true);

    for (JobSnapshot snapshot : List.of(full, emptyRetention, plain)) {
      // The payload is not part of a job made from a snapshot: it stays in the store.
      Job job = Job.fromSnapshot(snapshot, snapshot.type(), snapshot.queue());
      assertThat(job.snapshotWith(snapshot.payload())).isEqualTo(snapshot);
    }
  }

  private static Job plain() {
    Job job = new Job(ID, "t", "q", 0, JobStatus.READY, 100);
    job.payload(PAYLOAD);
    return job;
  }

  @Property(tries = 500)
  void dispatchOrderIsPriorityThenId(
      @ForAll @IntRange(min = -3, max = 3) int priorityA, @ForAll @LongRange(max = 3) long hiA,
      @ForAll @LongRange(max = 5) long loA,
      @ForAll @IntRange(min = -3, max = 3) int priorityB, @ForAll @LongRange(max = 3) long hiB,
      @ForAll @LongRange(max = 5) long loB) {
    Comparator<Job> composed = Comparator.<Job>comparingInt(Job::priority).thenComparing(Job::id);
    Job a = new Job(new JobId(hiA, loA), "t", "q", priorityA, JobStatus.READY, 0);
    Job b = new Job(new JobId(hiB, loB), "t", "q", priorityB, JobStatus.READY, 0);

    assertThat(Integer.signum(Job.DISPATCH_ORDER.compare(a, b)))
        .isEqualTo(Integer.signum(composed.compare(a, b)));
  }

  @Test
  void everyStatusIsFoundByItsOrdinal() {
    assertThat(JobStatus.COUNT).isEqualTo(JobStatus.values().length);
    for (JobStatus status : JobStatus.values()) {
      assertThat(JobStatus.ofOrdinal(status.ordinal())).isSameAs(status);
    }
  }
}

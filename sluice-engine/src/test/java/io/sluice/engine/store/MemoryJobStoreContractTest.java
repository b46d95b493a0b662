package io.sluice.engine.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link MemoryJobStore} keeps the whole {@link JobStore} contract, and its test-only extras work:
 * a commit made to fail writes nothing, and index drift is reported.
 */
class MemoryJobStoreContractTest extends JobStoreContract {
  private MemoryJobStore current;

  @Override
  protected JobStore open() {
    current = new MemoryJobStore();
    return current;
  }

  @Override
  protected JobStore reopen() {
    current = current.reopen();
    return current;
  }

  private static JobSnapshot job(long lo, String queue, JobStatus status) {
    return new JobSnapshot(new JobId(1, lo), "t", queue, 0, status, 0, 0, null, null, null,
        Job.NONE, Job.NONE, Job.NONE, Job.NONE, null);
  }

  private List<JobSnapshot> scan(MemoryJobStore store) {
    List<JobSnapshot> found = new ArrayList<>();
    store.scanJobs(found::add);
    return found;
  }

  @Test
  void failsTheNextCommitWithTheGivenErrorWritingNothingThenCommitsAgain() {
    MemoryJobStore store = new MemoryJobStore();
    JobSnapshot kept = job(1, "q", JobStatus.READY);
    store.commit(new CommitBatch(List.of(new Mutation.PutJob(kept)), false));
    IllegalStateException diskFull = new IllegalStateException("disk full");

    store.failNextCommit(diskFull);

    JobSnapshot lost = job(2, "q", JobStatus.READY);
    assertThatThrownBy(() -> store.commit(new CommitBatch(List.of(new Mutation.PutJob(lost),
        new Mutation.DeleteJob(kept.id(), 0, IndexEntry.of(kept))), true))).isSameAs(diskFull);
    assertThat(scan(store)).containsExactly(kept);
    assertThat(store.countJobs(new IndexQuery(null, null, Set.of(IndexEntry.State.UNFINISHED))))
        .isEqualTo(1);
    store.commit(new CommitBatch(List.of(new Mutation.PutJob(lost)), false));
    assertThat(scan(store)).containsExactly(kept, lost);
  }

  @Test
  void reportsIndexKeysThatAWriteNamedWrongly() {
    MemoryJobStore store = new MemoryJobStore();
    JobSnapshot ready = job(1, "emails", JobStatus.READY);
    JobSnapshot moved = job(1, "reports", JobStatus.COMPLETED);
    store.commit(new CommitBatch(List.of(new Mutation.PutJob(ready)), false));
    assertThat(store.indexDrift()).isEmpty();

    // A rewrite that claims the record was never indexed leaves its old keys behind.
    store.commit(new CommitBatch(List.of(new Mutation.PutJob(moved, null)), false));

    assertThat(store.indexDrift()).singleElement().asString()
        .contains("record says [reports, t, COMPLETED]")
        .contains("index holds [emails, reports, t, UNFINISHED, COMPLETED]");
  }
}

package io.sluice.engine.store;

import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A store that hands every call to another one; a subclass changes how commits are made (a
 * cluster leader's go through the replicated log) and keeps the reads.
 */
public abstract class ForwardingJobStore implements JobStore {
  private final JobStore store;

  protected ForwardingJobStore(JobStore store) {
    this.store = store;
  }

  @Override
  public void commit(CommitBatch batch) {
    store.commit(batch);
  }

  @Override
  public void scanBudgets(Consumer<BudgetView> sink) {
    store.scanBudgets(sink);
  }

  @Override
  public void scanBucketStates(BiConsumer<String, BucketState> sink) {
    store.scanBucketStates(sink);
  }

  @Override
  public void scanPointers(Mutation.Pointer kind, BiConsumer<String, JobId> sink) {
    store.scanPointers(kind, sink);
  }

  @Override
  public void scanCronGroups(BiConsumer<String, byte[]> sink) {
    store.scanCronGroups(sink);
  }

  @Override
  public void scanJobs(Consumer<JobSnapshot> sink) {
    store.scanJobs(sink);
  }

  @Override
  public long estimatedJobCount() {
    return store.estimatedJobCount();
  }

  @Override
  public JobScan scanJobs(JobId after, boolean descending) {
    return store.scanJobs(after, descending);
  }

  @Override
  public JobScan scanJobs(IndexQuery query, JobId after, boolean descending) {
    return store.scanJobs(query, after, descending);
  }

  @Override
  public long countJobs(IndexQuery query) {
    return store.countJobs(query);
  }

  @Override
  public JobSnapshot readJob(JobId id) {
    return store.readJob(id);
  }

  @Override
  public byte[] readPayload(JobId id) {
    return store.readPayload(id);
  }

  @Override
  public List<ErrorRecord> readErrors(JobId id, long afterSequence, boolean descending,
      int limit) {
    return store.readErrors(id, afterSequence, descending, limit);
  }

  @Override
  public ErrorRecord readError(JobId id, long sequence) {
    return store.readError(id, sequence);
  }

  /** Leaves the other store open: whoever opened it closes it. */
  @Override
  public void close() {}
}

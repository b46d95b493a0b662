package io.sluice.cluster;

import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.IndexQuery;
import io.sluice.engine.store.JobStore;
import io.sluice.engine.store.Mutation;
import io.sluice.engine.store.StorageException;
import io.sluice.store.rocks.RocksJobStore;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The store as the leader's engine sees it: reads come from this node's RocksDB; a commit goes
 * through the Raft log and returns once a majority holds it and this node has applied it. The
 * engine was recovered at the start of {@code term}, and only that term's leader may append.
 */
public final class ReplicatedJobStore implements JobStore {
  private final RocksJobStore local;
  private final ClusterNode node;
  private final long term;

  public ReplicatedJobStore(RocksJobStore local, ClusterNode node, long term) {
    this.local = local;
    this.node = node;
    this.term = term;
  }

  @Override
  public void commit(CommitBatch batch) {
    try {
      node.replicate(term, local.serialize(batch)).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StorageException("replicated commit interrupted", e);
    } catch (ExecutionException e) {
      throw new StorageException("replicated commit", e.getCause());
    }
  }

  @Override
  public void scanBudgets(Consumer<BudgetView> sink) {
    local.scanBudgets(sink);
  }

  @Override
  public void scanBucketStates(BiConsumer<String, BucketState> sink) {
    local.scanBucketStates(sink);
  }

  @Override
  public void scanPointers(Mutation.Pointer kind, BiConsumer<String, JobId> sink) {
    local.scanPointers(kind, sink);
  }

  @Override
  public void scanCronGroups(BiConsumer<String, byte[]> sink) {
    local.scanCronGroups(sink);
  }

  @Override
  public void scanJobs(Consumer<JobSnapshot> sink) {
    local.scanJobs(sink);
  }

  @Override
  public long estimatedJobCount() {
    return local.estimatedJobCount();
  }

  @Override
  public JobScan scanJobs(JobId after, boolean descending) {
    return local.scanJobs(after, descending);
  }

  @Override
  public JobScan scanJobs(IndexQuery query, JobId after, boolean descending) {
    return local.scanJobs(query, after, descending);
  }

  @Override
  public long countJobs(IndexQuery query) {
    return local.countJobs(query);
  }

  @Override
  public JobSnapshot readJob(JobId id) {
    return local.readJob(id);
  }

  @Override
  public byte[] readPayload(JobId id) {
    return local.readPayload(id);
  }

  @Override
  public List<ErrorRecord> readErrors(JobId id, long afterSequence, boolean descending,
      int limit) {
    return local.readErrors(id, afterSequence, descending, limit);
  }

  @Override
  public ErrorRecord readError(JobId id, long sequence) {
    return local.readError(id, sequence);
  }

  /** Leaves the local store open: the node owns it beyond one term. */
  @Override
  public void close() {}
}

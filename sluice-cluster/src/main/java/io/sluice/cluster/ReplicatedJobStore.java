package io.sluice.cluster;

import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.ForwardingJobStore;
import io.sluice.engine.store.StorageException;
import io.sluice.store.rocks.RocksJobStore;
import java.util.concurrent.ExecutionException;

/**
 * The store as the leader's engine sees it: reads come from this node's RocksDB; a commit goes
 * through the Raft log and returns once a majority holds it and this node has applied it. The
 * engine was recovered at the start of {@code term}, and only that term's leader may append.
 */
public final class ReplicatedJobStore extends ForwardingJobStore {
  private final RocksJobStore local;
  private final ClusterNode node;
  private final long term;

  public ReplicatedJobStore(RocksJobStore local, ClusterNode node, long term) {
    super(local);
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
}

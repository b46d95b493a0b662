package io.sluice.engine;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.Mutation;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Per batch key, the open batch job that immediately ready enqueues fold into (API.md §4.6). The
 * open job keeps its payload in memory, because a fold needs it while the previous fold's write
 * may not be committed yet. Taking, deleting or purging the job closes its batch.
 */
final class OpenBatches {
  private final Map<String, Job> open = new HashMap<>();
  private final Consumer<Mutation> enqueueWrites;
  private final Consumer<Mutation> writes;

  /** {@code enqueueWrites} carries changes made by enqueues, {@code writes} every other one. */
  OpenBatches(Consumer<Mutation> enqueueWrites, Consumer<Mutation> writes) {
    this.enqueueWrites = enqueueWrites;
    this.writes = writes;
  }

  /** Every open batch: key → job (a copy). */
  Map<String, Job> open() {
    return new HashMap<>(open);
  }

  /** The open job for {@code key} if it is still ready, else null. */
  Job openFor(String key) {
    Job job = open.get(key);
    return job != null && job.status() == JobStatus.READY ? job : null;
  }

  /** {@code job} becomes the open batch of its key, replacing (sealing) any other. */
  void open(Job job) {
    open.put(job.batch().key(), job);
    enqueueWrites.accept(
        new Mutation.PutPointer(Mutation.Pointer.OPEN_BATCH, job.batch().key(), job.id()));
  }

  /**
   * A worker took the job: its batch is closed for good (API.md §4.6), also across a crash, so
   * the pointer is deleted on disk too, the one write a dispatch makes.
   */
  void dispatched(Job job) {
    forgotten(job);
  }

  /** The job is deleted or purged: if it was an open batch, the batch is gone. */
  void forgotten(Job job) {
    if (job.batch() != null && open.remove(job.batch().key(), job)) {
      writes.accept(new Mutation.DeletePointer(Mutation.Pointer.OPEN_BATCH, job.batch().key()));
    }
  }

  /** Start-up: a stored pointer stays open only while its job is ready; true if it does. */
  boolean recover(String key, Job job) {
    if (job != null && job.batch() != null && job.batch().key().equals(key)
        && job.status() == JobStatus.READY) {
      open.put(key, job);
      return true;
    }
    writes.accept(new Mutation.DeletePointer(Mutation.Pointer.OPEN_BATCH, key));
    return false;
  }
}

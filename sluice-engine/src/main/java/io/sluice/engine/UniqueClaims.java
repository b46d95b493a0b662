package io.sluice.engine;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.UniqueKey;
import io.sluice.engine.store.Mutation;
import io.sluice.engine.job.JobStatus;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The claims of API.md §4.5: per unique key, the job that currently holds it. A claim is written
 * when taken and when released by a change the engine writes anyway; a release on dispatch stays
 * in memory (dispatch is not written), which recovery reproduces: a job in flight at a crash comes
 * back ready and, like any requeued job, holds its claim again if no one else took it.
 */
final class UniqueClaims {
  private final Map<String, Job> holders = new HashMap<>();
  private final Consumer<Mutation> enqueueWrites;
  private final Consumer<Mutation> writes;

  /** {@code enqueueWrites} carries the claims of new jobs, {@code writes} every other change. */
  UniqueClaims(Consumer<Mutation> enqueueWrites, Consumer<Mutation> writes) {
    this.enqueueWrites = enqueueWrites;
    this.writes = writes;
  }

  /** Every claim: key → holder (a copy). */
  Map<String, Job> holders() {
    return new HashMap<>(holders);
  }

  /** The job that an enqueue with {@code incoming} duplicates, or null to create a new job. */
  Job duplicated(UniqueKey incoming, long nowMs) {
    Job holder = holders.get(incoming.key());
    if (holder == null || holder.isPurgedAt(nowMs)) {
      return null;
    }
    return incoming.scope().covers(holder.status()) ? holder : null;
  }

  /** A new job takes its key's claim, whoever held it. */
  void take(Job job) {
    holders.put(job.unique().key(), job);
    enqueueWrites.accept(claim(job));
  }

  /** A job back in the queue (retry, requeue) holds its claim again if the claim is free. */
  void retakeIfFree(Job job) {
    if (job.unique() != null && !holders.containsKey(job.unique().key())) {
      holders.put(job.unique().key(), job);
      writes.accept(claim(job));
    }
  }

  private static Mutation claim(Job job) {
    return new Mutation.PutPointer(Mutation.Pointer.UNIQUE_CLAIM, job.unique().key(), job.id());
  }

  /** Dispatch: a {@code queued} holder lets go, in memory only. */
  void dispatched(Job job) {
    if (job.unique() != null && job.unique().scope() == UniqueKey.Scope.QUEUED) {
      holders.remove(job.unique().key(), job);
    }
  }

  /** The job finished: it lets go unless its scope is {@code exists}. */
  void finished(Job job) {
    if (job.unique() != null && job.unique().scope() != UniqueKey.Scope.EXISTS) {
      release(job);
    }
  }

  /** The job is deleted or purged: every scope lets go. */
  void forgotten(Job job) {
    if (job.unique() != null) {
      release(job);
    }
  }

  private void release(Job job) {
    if (holders.remove(job.unique().key(), job)) {
      writes.accept(new Mutation.DeletePointer(Mutation.Pointer.UNIQUE_CLAIM,
          job.unique().key()));
    }
  }

  /**
   * Start-up, after the stored claims: a ready job whose key is free holds it again, oldest
   * first. Such a job was in flight at the crash (a ready job keeps its claim against every
   * newcomer), so this is the requeue rule of API.md §4.5 applied to recovery.
   */
  void retakeFreeOnRecovery(List<Job> readyOldestFirst) {
    for (Job job : readyOldestFirst) {
      if (job.unique() != null && job.status() == JobStatus.READY) {
        retakeIfFree(job);
      }
    }
  }

  /**
   * Start-up: a stored claim is kept if its job still exists with that key and its scope still
   * covers its status; else it is dropped (it was released by a dispatch, which is not written).
   */
  void recover(String key, Job job) {
    if (job != null && job.unique() != null && job.unique().key().equals(key)
        && job.unique().scope().covers(job.status())) {
      holders.put(key, job);
    } else {
      writes.accept(new Mutation.DeletePointer(Mutation.Pointer.UNIQUE_CLAIM, key));
    }
  }
}

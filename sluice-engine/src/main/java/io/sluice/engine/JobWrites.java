package io.sluice.engine;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.Mutation;

/**
 * The writes of a job's record, each naming the index entry it replaces and remembering the new
 * one on the job, so the store can keep its secondary index exact without reading first.
 */
final class JobWrites {
  private JobWrites() {}

  static Mutation.PutJob put(Job job) {
    return put(job, job.snapshot(false));
  }

  /** {@code snapshot} must be the job's own, without payload. */
  static Mutation.PutJob put(Job job, JobSnapshot snapshot) {
    IndexEntry previous = job.indexed();
    job.indexed(IndexEntry.of(snapshot, previous));
    return new Mutation.PutJob(snapshot, previous);
  }

  static Mutation.DeleteJob delete(Job job) {
    IndexEntry indexed = job.indexed();
    job.indexed(null);
    return new Mutation.DeleteJob(job.id(), job.attempts(), indexed);
  }
}

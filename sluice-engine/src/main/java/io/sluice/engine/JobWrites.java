package io.sluice.engine;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.Mutation;

/**
 * The writes of a job's record, each naming the index entry it replaces, so the store can keep
 * its secondary index exact without reading first.
 *
 * <p>Every change of a job's queue or finished state is written in the turn that makes it, so
 * between changes the stored entry is the one its current fields give ({@link #storedEntry}); a
 * caller about to change them takes the entry first.
 */
final class JobWrites {
  /**
   * The largest payload a job's record holds (bytes of canonical JSON). A larger one has a key
   * of its own, so that reading the records at start-up does not read large payloads.
   */
  static final int MAX_PAYLOAD_IN_RECORD = 1024;

  private JobWrites() {}

  /** What the job's stored record is indexed under, before any unwritten change of this turn. */
  static IndexEntry storedEntry(Job job) {
    return IndexEntry.of(job.queue(), job.type(), job.status());
  }

  /** Rewrites a job whose indexed fields did not change since its last write. */
  static Mutation.PutJob put(Job job) {
    return put(job, job.snapshot(false), storedEntry(job));
  }

  /**
   * {@code snapshot} must be the job's own, without payload; {@code stored} its old entry. A
   * record that holds the payload carries it over.
   */
  static Mutation.PutJob put(Job job, JobSnapshot snapshot, IndexEntry stored) {
    return new Mutation.PutJob(snapshot, stored, job.payloadInRecord(), null);
  }

  /**
   * The first write of a new job: its record, which holds the payload when it is small enough
   * ({@link #MAX_PAYLOAD_IN_RECORD}), and the job learns that it does. An open batch's payload
   * is rewritten as jobs fold into it, so it always has a key of its own.
   */
  static Mutation.PutJob create(Job job, byte[] payload) {
    if (payload.length > MAX_PAYLOAD_IN_RECORD || job.batch() != null) {
      return new Mutation.PutJob(job.snapshot(false), null);
    }
    job.payloadInRecord(true);
    return new Mutation.PutJob(job.snapshot(false), null, true, payload);
  }

  static Mutation.DeleteJob delete(Job job, IndexEntry stored) {
    return new Mutation.DeleteJob(job.id(), job.errorRecords(), stored, job.payloadInRecord());
  }
}

package io.sluice.engine.store;

import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;

/** One durable effect of an engine turn; a turn's mutations are committed atomically. */
public sealed interface Mutation {
  /**
   * Writes (or overwrites) the job record ({@code job}'s own payload is never part of it).
   * {@code previous} is what the record was indexed under until now, null for a new job.
   *
   * <p>{@code payloadInRecord}: the record holds the job's payload, so that a small job is one
   * stored key, not two. It holds {@code payload}, or when that is null the one the stored
   * record holds, carried over (a rewrite). Otherwise the record holds no payload and
   * {@code payload} must be null: the payload is a {@link PutPayload} of its own.
   */
  record PutJob(JobSnapshot job, IndexEntry previous, boolean payloadInRecord, byte[] payload)
      implements Mutation {
    public PutJob {
      if (payload != null && !payloadInRecord) {
        throw new IllegalArgumentException("a payload for a record that holds none");
      }
    }

    /** A record without its payload. */
    public PutJob(JobSnapshot job, IndexEntry previous) {
      this(job, previous, false, null);
    }

    /** A new job's record, without its payload. */
    public PutJob(JobSnapshot job) {
      this(job, null);
    }
  }

  record PutPayload(JobId id, byte[] payload) implements Mutation {}

  /** Writes the error record under its {@link ErrorRecord#sequence()}. */
  record PutError(JobId id, ErrorRecord error) implements Mutation {}

  /**
   * Removes the job record, its payload, its {@code errorRecords} error records (sequences 1 to
   * {@code errorRecords}) and its index keys ({@code indexed}, what the record is indexed under;
   * null only where nothing was indexed). {@code payloadInRecord}: the payload goes with the
   * record, and there is no payload of its own to delete.
   */
  record DeleteJob(JobId id, int errorRecords, IndexEntry indexed, boolean payloadInRecord)
      implements Mutation {
    public DeleteJob(JobId id, int errorRecords, IndexEntry indexed) {
      this(id, errorRecords, indexed, false);
    }

    public DeleteJob(JobId id, int errorRecords) {
      this(id, errorRecords, null);
    }
  }

  /** Writes (or overwrites) a budget's policy and timestamps. */
  record PutBudget(BudgetView budget) implements Mutation {}

  /** Removes a budget's policy and its stored token state, if any. */
  record DeleteBudget(String key) implements Mutation {}

  /** Writes (or overwrites) a durable budget's token state (X4). */
  record PutBucketState(String key, BucketState state) implements Mutation {}

  /** Removes a budget's stored token state (X4: it stopped being durable). */
  record DeleteBucketState(String key) implements Mutation {}

  /** Points {@code key} of {@code kind} at a job: a unique-key claim or an open batch. */
  record PutPointer(Pointer kind, String key, JobId job) implements Mutation {}

  record DeletePointer(Pointer kind, String key) implements Mutation {}

  /** Writes (or overwrites) a cron group, encoded by the engine's cron code. */
  record PutCronGroup(String name, byte[] record) implements Mutation {}

  record DeleteCronGroup(String name) implements Mutation {}

  /** The named pointers from a key to the job holding it. */
  enum Pointer {
    UNIQUE_CLAIM,
    OPEN_BATCH
  }
}

package io.sluice.engine.store;

import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;

/** One durable effect of an engine turn; a turn's mutations are committed atomically. */
public sealed interface Mutation {
  /**
   * Writes (or overwrites) the job record; the payload is not part of it. {@code previous} is
   * what the record was indexed under until now, null for a new job.
   */
  record PutJob(JobSnapshot job, IndexEntry previous) implements Mutation {
    /** A new job's record. */
    public PutJob(JobSnapshot job) {
      this(job, null);
    }
  }

  record PutPayload(JobId id, byte[] payload) implements Mutation {}

  record PutError(JobId id, ErrorRecord error) implements Mutation {}

  /**
   * Removes the job record, its payload, its {@code attempts} error records and its index keys
   * ({@code indexed}, what the record is indexed under; null only where nothing was indexed).
   */
  record DeleteJob(JobId id, int attempts, IndexEntry indexed) implements Mutation {
    public DeleteJob(JobId id, int attempts) {
      this(id, attempts, null);
    }
  }

  /** Writes (or overwrites) a budget's policy and timestamps. */
  record PutBudget(BudgetView budget) implements Mutation {}

  record DeleteBudget(String key) implements Mutation {}
}

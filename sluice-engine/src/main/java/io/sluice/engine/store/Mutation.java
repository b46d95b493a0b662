package io.sluice.engine.store;

import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;

/** One durable effect of an engine turn; a turn's mutations are committed atomically. */
public sealed interface Mutation {
  /** Writes (or overwrites) the job record; the payload is not part of it. */
  record PutJob(JobSnapshot job) implements Mutation {}

  record PutPayload(JobId id, byte[] payload) implements Mutation {}

  record PutError(JobId id, ErrorRecord error) implements Mutation {}

  /** Removes the job record, its payload and its {@code attempts} error records. */
  record DeleteJob(JobId id, int attempts) implements Mutation {}

  /** Writes (or overwrites) a budget's policy and timestamps. */
  record PutBudget(BudgetView budget) implements Mutation {}

  record DeleteBudget(String key) implements Mutation {}
}

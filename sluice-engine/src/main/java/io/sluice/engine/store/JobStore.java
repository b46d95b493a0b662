package io.sluice.engine.store;

import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import java.util.Iterator;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The engine's port to durable storage. {@link #commit} is called from the commit thread only;
 * reads may come from any thread.
 */
public interface JobStore extends AutoCloseable {
  /** Writes the batch atomically to the write-ahead log; returns once it is durable per mode. */
  void commit(CommitBatch batch);

  /** Feeds every stored budget policy to the sink. */
  void scanBudgets(Consumer<BudgetView> sink);

  /** Feeds every stored token state of a durable budget (key, state) to the sink (X4). */
  void scanBucketStates(BiConsumer<String, BucketState> sink);

  /** Feeds every stored pointer of {@code kind} (key, job) to the sink. */
  void scanPointers(Mutation.Pointer kind, BiConsumer<String, JobId> sink);

  /** Feeds every stored cron group (name, record) to the sink, in name byte order. */
  void scanCronGroups(BiConsumer<String, byte[]> sink);

  /**
   * Feeds every stored job record to the sink, in id order, with its payload when the record
   * holds it ({@link Mutation.PutJob#payloadInRecord}) and only then.
   */
  void scanJobs(Consumer<JobSnapshot> sink);

  /** About how many job records are stored (0 when unknown), to size memory before a scan. */
  default long estimatedJobCount() {
    return 0;
  }

  /**
   * Stored job records in id order, strictly after {@code after} (before it when descending;
   * null starts at the first or last), from one consistent snapshot. Any thread; close it.
   */
  JobScan scanJobs(JobId after, boolean descending);

  /**
   * Like {@link #scanJobs(JobId, boolean)}, but only the records the secondary index lists under
   * {@code query}, so a selective filter reads few records whatever the store holds.
   */
  JobScan scanJobs(IndexQuery query, JobId after, boolean descending);

  /** How many records the secondary index lists under {@code query}; no record is read. */
  long countJobs(IndexQuery query);

  /** An open scan over stored job records. */
  interface JobScan extends Iterator<JobSnapshot>, AutoCloseable {
    @Override
    void close();
  }

  /** One stored job record (without payload), or null. Any thread. */
  JobSnapshot readJob(JobId id);

  /** The canonical JSON payload of a job, or null if none is stored. */
  byte[] readPayload(JobId id);

  /**
   * Error records with sequence after {@code afterSequence} (before it when descending; 0 then
   * means from the newest). A job never throttled has sequence = attempt (X6).
   */
  List<ErrorRecord> readErrors(JobId id, long afterSequence, boolean descending, int limit);

  /** The error record at {@code sequence} in the job's error list, or null. */
  ErrorRecord readError(JobId id, long sequence);

  @Override
  void close();
}

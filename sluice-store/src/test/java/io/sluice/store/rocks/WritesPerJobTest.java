package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.Mutation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The keys a job's life writes, counted in the store's own write batches: the regression check
 * of the in-memory index of unfinished jobs (docs/decisions.md "Unfinished jobs indexed in
 * memory"), which took a job that is enqueued and acknowledged from ten memtable writes to four,
 * and of small payloads in the job's record ("Small payloads in the job's record"), which took it
 * to two.
 */
class WritesPerJobTest {
  private static final int JOBS = 100;

  @TempDir Path dir;
  private final JobIdGenerator ids = new JobIdGenerator();

  /** Records per column family id in a serialized batch. */
  private static Map<Integer, Integer> records(byte[] batch) {
    Map<Integer, Integer> counts = new TreeMap<>();
    BatchRecords.forEach(batch, (family, key, value) -> counts.merge(family, 1, Integer::sum));
    return counts;
  }

  private static int total(Map<Integer, Integer> counts) {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** The records an enqueue of {@link #JOBS} jobs writes, then completing them (retention 0). */
  private List<Integer> recordsOfEnqueueAndCompletion(boolean payloadInRecord) {
    try (RocksJobStore store = new RocksJobStore(new StoreConfig(dir, 8L << 20))) {
      List<Mutation> enqueue = new ArrayList<>();
      List<Mutation> complete = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        JobId id = ids.next(StoredJobs.T0);
        JobSnapshot job = StoredJobs.job(id, "q");
        if (payloadInRecord) {
          enqueue.add(new Mutation.PutJob(job, null, true, StoredJobs.payload(id, 100)));
        } else {
          enqueue.add(new Mutation.PutJob(job));
          enqueue.add(new Mutation.PutPayload(id, StoredJobs.payload(id, 2_000)));
        }
        complete.add(new Mutation.DeleteJob(id, 0, IndexEntry.of(job), payloadInRecord));
      }
      return List.of(total(records(store.serialize(new CommitBatch(enqueue, false)))),
          total(records(store.serialize(new CommitBatch(complete, false)))));
    }
  }

  @Test
  void aJobWhoseRecordHoldsItsPayloadWritesOneKeyAndDeletesOne() {
    assertThat(recordsOfEnqueueAndCompletion(true)).containsExactly(JOBS, JOBS);
  }

  @Test
  void aJobWithAPayloadOfItsOwnWritesTwoKeysAndDeletesTwo() {
    assertThat(recordsOfEnqueueAndCompletion(false)).containsExactly(2 * JOBS, 2 * JOBS);
  }

  @Test
  void aJobKeptAfterItFinishesIsIndexedThenUnderItsThreeTerms() {
    try (RocksJobStore store = new RocksJobStore(new StoreConfig(dir, 8L << 20))) {
      JobId id = ids.next(StoredJobs.T0);
      JobSnapshot job = StoredJobs.job(id, "q");
      List<Mutation> finish = List.of(
          new Mutation.PutJob(job.withStatus(JobStatus.COMPLETED), IndexEntry.of(job)));

      // The record, then the queue, type and status keys of a finished job.
      assertThat(total(records(store.serialize(new CommitBatch(finish, false))))).isEqualTo(4);
    }
  }
}

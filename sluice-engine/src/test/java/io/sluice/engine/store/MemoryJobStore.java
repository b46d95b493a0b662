package io.sluice.engine.store;

import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import java.util.Iterator;
import java.util.List;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A {@link JobStore} held in memory, for engine tests that need a store without RocksDB: it
 * passes {@link JobStoreContract}. A commit applies its mutations to a copy of the contents and
 * publishes the copy only when every mutation applied, so a batch is all or nothing and a scan
 * reads the contents published when it opened. The secondary index is kept exactly as the
 * mutations name it ({@link Mutation.PutJob#previous}, {@link Mutation.DeleteJob#indexed}), like
 * RocksDB's; {@link #indexDrift} tells where that differs from what the records say.
 *
 * <p>{@link #failNextCommit} makes the next commit throw and write nothing, as a failing disk
 * would. Commits come from one thread at a time; reads from any thread.
 */
public final class MemoryJobStore implements JobStore {
  /** What every store opened over the same data shares, as files on disk would be shared. */
  private static final class Disk {
    volatile StoreContents contents = new StoreContents();
    final AtomicReference<RuntimeException> nextCommitFailure = new AtomicReference<>();
  }

  private final Disk disk;
  private volatile boolean closed;

  public MemoryJobStore() {
    this(new Disk());
  }

  private MemoryJobStore(Disk disk) {
    this.disk = disk;
  }

  private volatile java.util.concurrent.CountDownLatch commitGate =
      new java.util.concurrent.CountDownLatch(0);

  private void awaitGate() {
    try {
      if (!commitGate.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
        throw new IllegalStateException("commits held for more than 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while commits were held", e);
    }
  }

  /** Closes this store and opens another over the same data, as a restarted server would. */
  public MemoryJobStore reopen() {
    close();
    return new MemoryJobStore(disk);
  }

  /** The next commit throws {@code failure} and writes nothing; later commits work again. */
  public void failNextCommit(RuntimeException failure) {
    disk.nextCommitFailure.set(Objects.requireNonNull(failure));
  }

  /** Commits wait (on the committing thread) until {@link #releaseCommits} is called. */
  public void holdCommits() {
    commitGate = new java.util.concurrent.CountDownLatch(1);
  }

  public void releaseCommits() {
    commitGate.countDown();
  }

  /**
   * Where the stored secondary index disagrees with the stored records: one line per job whose
   * index keys are not exactly those of its record (empty when every write named its entry
   * right).
   */
  public List<String> indexDrift() {
    return disk.contents.indexDrift();
  }

  @Override
  public void commit(CommitBatch batch) {
    awaitGate();
    checkOpen("commit");
    RuntimeException failure = disk.nextCommitFailure.getAndSet(null);
    if (failure != null) {
      throw failure;
    }
    StoreContents next = disk.contents.copy();
    for (Mutation mutation : batch.mutations()) {
      next.apply(mutation);
    }
    disk.contents = next;
  }

  @Override
  public void scanBudgets(Consumer<BudgetView> sink) {
    checkOpen("scan of budgets");
    disk.contents.budgets.values().forEach(sink);
  }

  @Override
  public void scanBucketStates(BiConsumer<String, BucketState> sink) {
    checkOpen("scan of bucket states");
    disk.contents.bucketStates.forEach(sink);
  }

  @Override
  public void scanPointers(Mutation.Pointer kind, BiConsumer<String, JobId> sink) {
    checkOpen("scan of " + kind + " pointers");
    disk.contents.pointers.get(kind).forEach(sink);
  }

  @Override
  public void scanCronGroups(BiConsumer<String, byte[]> sink) {
    checkOpen("scan of cron groups");
    disk.contents.cronGroups.forEach((name, record) -> sink.accept(name, record.clone()));
  }

  @Override
  public void scanJobs(Consumer<JobSnapshot> sink) {
    checkOpen("scan of jobs");
    StoreContents contents = disk.contents;
    contents.jobs.values()
        .forEach(job -> sink.accept(job.withPayload(contents.recordPayloads.get(job.id()))));
  }

  @Override
  public long estimatedJobCount() {
    checkOpen("job count estimate");
    return disk.contents.jobs.size();
  }

  @Override
  public JobScan scanJobs(JobId after, boolean descending) {
    checkOpen("scan of jobs from a cursor");
    StoreContents snapshot = disk.contents;
    return scan(snapshot, walk(snapshot.jobs.navigableKeySet(), after, descending));
  }

  @Override
  public JobScan scanJobs(IndexQuery query, JobId after, boolean descending) {
    checkOpen("scan of jobs by index");
    StoreContents snapshot = disk.contents;
    return scan(snapshot, walk(snapshot.indexed(query), after, descending));
  }

  @Override
  public long countJobs(IndexQuery query) {
    checkOpen("count of jobs by index");
    return disk.contents.indexed(query).size();
  }

  @Override
  public JobSnapshot readJob(JobId id) {
    checkOpen("read of job " + id);
    return disk.contents.jobs.get(id);
  }

  @Override
  public byte[] readPayload(JobId id) {
    checkOpen("read of payload " + id);
    StoreContents contents = disk.contents;
    byte[] payload = contents.recordPayloads.getOrDefault(id, contents.payloads.get(id));
    return payload == null ? null : payload.clone();
  }

  @Override
  public List<ErrorRecord> readErrors(JobId id, long afterSequence, boolean descending,
      int limit) {
    checkOpen("read of errors of " + id);
    NavigableMap<Long, ErrorRecord> errors = disk.contents.errorsOf(id);
    NavigableMap<Long, ErrorRecord> range;
    if (descending) {
      long last = afterSequence <= 0 ? StoreContents.MAX_SEQUENCE
          : Math.min(afterSequence - 1, StoreContents.MAX_SEQUENCE);
      range = errors.headMap(last, true).descendingMap();
    } else {
      if (afterSequence >= StoreContents.MAX_SEQUENCE) {
        return List.of();
      }
      range = errors.tailMap(Math.max(0, afterSequence + 1), true);
    }
    return range.values().stream().limit(limit).toList();
  }

  @Override
  public ErrorRecord readError(JobId id, long sequence) {
    checkOpen("read of error " + sequence + " of " + id);
    return disk.contents.errorsOf(id).get(sequence);
  }

  @Override
  public void close() {
    closed = true;
  }

  private void checkOpen(String operation) {
    if (closed) {
      throw new StorageException(operation, new IllegalStateException("the store is closed"));
    }
  }

  /** The ids in walking order, strictly after {@code after} when given. */
  private static Iterator<JobId> walk(NavigableSet<JobId> ids, JobId after, boolean descending) {
    NavigableSet<JobId> ordered = descending ? ids.descendingSet() : ids;
    return (after == null ? ordered : ordered.tailSet(after, false)).iterator();
  }

  /** Records of the walked ids in {@code snapshot}, skipping ids it holds no record for. */
  private JobScan scan(StoreContents snapshot, Iterator<JobId> ids) {
    return JobScans.from(() -> {
      while (ids.hasNext()) {
        JobSnapshot job = snapshot.jobs.get(ids.next());
        if (job != null) {
          return job;
        }
      }
      return null;
    }, () -> { });
  }
}

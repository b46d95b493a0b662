package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.IndexQuery;
import io.sluice.engine.store.JobStore;
import io.sluice.engine.store.Mutation;
import io.sluice.engine.store.StorageException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/**
 * An index scan whose first step fails while it is made (the step runs before the scan is
 * returned, so nobody could close it) must give back its use of the store: found in review,
 * close() then waited its full 10 s and left RocksDB open.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RocksJobStoreScanLeakTest {
  private static final long T0 = 1_700_000_000_000L;

  @TempDir Path tmp;

  private final JobIdGenerator ids = new JobIdGenerator();

  private List<JobId> fill(RocksJobStore store, int count) {
    List<Mutation> puts = new ArrayList<>();
    List<JobId> made = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      JobId id = ids.next(T0);
      made.add(id);
      // Finished, so that the stored index lists them and a scan reads their records.
      puts.add(new Mutation.PutJob(new JobSnapshot(id, "t", "q", 32768, JobStatus.COMPLETED, T0,
          0, null, null, null, Job.NONE, Job.NONE, Job.NONE, Job.NONE, null)));
    }
    store.commit(new CommitBatch(puts, true));
    return made;
  }

  private static IndexQuery queueQ() {
    return new IndexQuery(Set.of("q"), null, null);
  }

  /** Deterministic: an undecodable first record makes the scan's creation throw. */
  @Test
  void aScanWhoseFirstStepFailsLeavesTheStoreFreeToClose() throws Exception {
    Path dir = tmp.resolve("corrupt");
    RocksJobStore store = new RocksJobStore(new StoreConfig(dir, 8L << 20));
    JobId first = fill(store, 3).get(0);
    store.close();
    corrupt(dir, first);

    RocksJobStore reopened = new RocksJobStore(new StoreConfig(dir, 8L << 20));
    assertThatThrownBy(() -> reopened.scanJobs(queueQ(), null, false))
        .isInstanceOf(IllegalStateException.class); // no JobScan returned: nothing to close
    long start = System.nanoTime();
    reopened.close();
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).as("close with nothing running").isLessThan(Duration.ofSeconds(5));
  }

  /** Closing may begin between a scan's start and its first step; tried until it has. */
  @Test
  void aCloseWhileScansAreBeingMadeDoesNotWait() throws Exception {
    for (int trial = 0; trial < 8; trial++) {
      RocksJobStore store = new RocksJobStore(
          new StoreConfig(tmp.resolve("race" + trial), 8L << 20));
      fill(store, 50);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger opened = new AtomicInteger();
      Thread reader = new Thread(() -> {
        while (!stop.get()) {
          try (JobStore.JobScan scan = store.scanJobs(queueQ(), null, false)) {
            opened.incrementAndGet();
          } catch (StorageException e) {
            return; // closing
          }
        }
      });
      reader.start();
      while (opened.get() < 2000) {
        Thread.onSpinWait();
      }
      long start = System.nanoTime();
      store.close();
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      stop.set(true);
      reader.join();
      assertThat(took).as("close in trial " + trial).isLessThan(Duration.ofSeconds(5));
    }
  }

  private static void corrupt(Path dir, JobId id) throws Exception {
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY));
    for (String name : List.of("jobs", "payloads", "errors", "budgets", "index", "pointers",
        "crons", "bucket_states")) {
      descriptors.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8)));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions();
        RocksDB db = RocksDB.open(options, dir.toString(), descriptors, handles)) {
      db.put(handles.get(1), Keys.job(id), new byte[] {0x7F});
      handles.forEach(ColumnFamilyHandle::close);
    }
    assertThat(Files.isDirectory(dir)).isTrue();
  }
}

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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing the store while another thread reads from it. Found by a benchmark: a server stopped
 * during a count of a million jobs closed RocksDB under the count's thread, and the process died
 * in native code.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RocksJobStoreCloseTest {
  private static final long T0 = 1_700_000_000_000L;

  @TempDir Path dataDir;

  private final JobIdGenerator ids = new JobIdGenerator();

  private RocksJobStore storeWithJobs(int count) {
    RocksJobStore store = new RocksJobStore(new StoreConfig(dataDir, 8L << 20));
    List<Mutation> puts = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      JobId id = ids.next(T0);
      puts.add(new Mutation.PutJob(new JobSnapshot(id, "t", "q", 32768, JobStatus.READY, T0, 0,
          null, null, null, Job.NONE, Job.NONE, Job.NONE, Job.NONE, null)));
    }
    store.commit(new CommitBatch(puts, true));
    return store;
  }

  private static IndexQuery queueQ() {
    return new IndexQuery(Set.of("q"), null, null);
  }

  @Test
  void closingWaitsForAnOpenScanAndEndsItAtItsNextStep() throws Exception {
    RocksJobStore store = storeWithJobs(100);
    assertCloseEndsTheScan(store, store.scanJobs(null, false));
  }

  @Test
  void closingWaitsForAnOpenIndexScanAndEndsItAtItsNextStep() throws Exception {
    RocksJobStore store = storeWithJobs(100);
    assertCloseEndsTheScan(store, store.scanJobs(queueQ(), null, false));
  }

  private static void assertCloseEndsTheScan(RocksJobStore store, JobStore.JobScan scan)
      throws Exception {
    assertThat(scan.hasNext()).isTrue();
    scan.next();

    CompletableFuture<Void> closed = CompletableFuture.runAsync(store::close);
    JobId any = new JobIdGenerator().next(T0);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    boolean closing = false;
    while (!closing && System.nanoTime() < until) {
      try {
        store.readJob(any);
      } catch (StorageException e) {
        closing = true; // new reads are refused: closing has begun
      }
    }
    assertThat(closing).as("closing began").isTrue();
    assertThatThrownBy(() -> {
      if (scan.hasNext()) {
        scan.next();
      }
    }).as("the scan ends at its next step").isInstanceOf(StorageException.class);
    assertThat(closed).as("close waits while the scan is open").isNotDone();
    scan.close();
    closed.get(10, TimeUnit.SECONDS);
  }

  @Test
  void usesAfterCloseFailCleanlyAndCloseIsIdempotent() {
    RocksJobStore store = storeWithJobs(3);
    JobId id = ids.next(T0);
    store.close();
    store.close();

    assertThatThrownBy(() -> store.readJob(id)).isInstanceOf(StorageException.class)
        .hasMessageContaining("closing");
    assertThatThrownBy(() -> store.countJobs(queueQ())).isInstanceOf(StorageException.class);
    assertThatThrownBy(() -> store.scanJobs(null, false)).isInstanceOf(StorageException.class);
    assertThatThrownBy(() -> store.commit(new CommitBatch(List.of(), false)))
        .isInstanceOf(StorageException.class);
  }

  @Test
  void closeReturnsPromptlyWhenNothingReads() {
    RocksJobStore store = storeWithJobs(10);
    long start = System.nanoTime();
    store.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }
}

package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.Mutation;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.PerfLevel;

/**
 * RocksDB counts, per thread and by default, what each call does (key comparisons among them);
 * a thread that commits turns that off for itself, and only for itself.
 */
class PerfCountersTest {
  @TempDir Path dir;

  @Test
  void aCommittingThreadStopsCountingAndOthersAreLeftAsTheyWere() throws Exception {
    ExecutorService committer = Executors.newSingleThreadExecutor();
    ExecutorService bystander = Executors.newSingleThreadExecutor();
    try (RocksJobStore store = new RocksJobStore(new StoreConfig(dir, 8L << 20))) {
      JobId id = new JobIdGenerator().next(StoredJobs.T0);
      CommitBatch batch = new CommitBatch(
          List.of(new Mutation.PutJob(StoredJobs.job(id, "q"), null, true,
              StoredJobs.payload(id, 10))), false);

      PerfLevel before = on(committer, store::perfLevelOfThisThread);
      PerfLevel after = on(committer, () -> {
        store.commit(batch);
        return store.perfLevelOfThisThread();
      });
      PerfLevel elsewhere = on(bystander, store::perfLevelOfThisThread);

      assertThat(before).isEqualTo(PerfLevel.ENABLE_COUNT);
      assertThat(after).isEqualTo(PerfLevel.DISABLE);
      assertThat(elsewhere).isEqualTo(PerfLevel.ENABLE_COUNT);
      assertThat(store.readJob(id)).isNotNull();
    } finally {
      committer.shutdownNow();
      bystander.shutdownNow();
    }
  }

  private static <T> T on(ExecutorService thread, Callable<T> work)
      throws Exception {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return work.call();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, thread).get();
  }
}

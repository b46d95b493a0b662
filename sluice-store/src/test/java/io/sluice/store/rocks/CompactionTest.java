package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.engine.store.IndexQuery;
import io.sluice.engine.store.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link RocksJobStore#compact}: deleted jobs give their disk space back. */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CompactionTest {
  private static final int PAYLOAD_BYTES = 500;

  @TempDir Path dataDir;

  @Test
  void compactionReclaimsTheSpaceOfDeletedJobsAndKeepsTheRest() {
    try (RocksJobStore store = new RocksJobStore(new StoreConfig(dataDir, 8L << 20))) {
      StoredJobs jobs = new StoredJobs(store);
      List<JobId> created = jobs.put(20_000, "q", PAYLOAD_BYTES);
      store.compact(); // everything into table files, so their size says what is stored
      long full = StoredJobs.tableBytes(dataDir);
      assertThat(full).isGreaterThan(1L << 19);

      List<JobId> kept = created.subList(created.size() - 100, created.size());
      jobs.delete(created.subList(0, created.size() - 100), "q");
      store.compact();

      long after = StoredJobs.tableBytes(dataDir);
      assertThat(after).as("table bytes after deleting 99.5%% of %d bytes of jobs", full)
          .isLessThan(full / 20);
      List<JobId> found = new ArrayList<>();
      store.scanJobs(job -> found.add(job.id()));
      assertThat(found).containsExactlyElementsOf(kept);
      assertThat(store.countJobs(new IndexQuery(Set.of("q"), null, null))).isEqualTo(100);
      assertThat(store.readPayload(kept.get(0)))
          .isEqualTo(StoredJobs.payload(kept.get(0), PAYLOAD_BYTES));
    }
  }

  @Test
  void everyColumnFamilyMarksTombstoneHeavyFilesForCompaction() throws Exception {
    new RocksJobStore(new StoreConfig(dataDir, 8L << 20)).close();
    List<String> lines;
    try (Stream<Path> files = Files.list(dataDir)) {
      Path options = files.filter(f -> f.getFileName().toString().startsWith("OPTIONS-"))
          .max(Comparator.naturalOrder()).orElseThrow();
      lines = Files.readAllLines(options);
    }
    long families = lines.stream().filter(line -> line.startsWith("[CFOptions ")).count();
    long collectors = lines.stream()
        .filter(line -> line.contains("table_properties_collectors=")
            && line.contains("CompactOnDeletionCollector"))
        .count();
    assertThat(families).isEqualTo(9);
    assertThat(collectors).isEqualTo(families);
  }

  @Test
  void closingDuringACompactionEndsItWithAStorageFailure() throws Exception {
    RocksJobStore store = new RocksJobStore(new StoreConfig(dataDir, 8L << 20));
    StoredJobs jobs = new StoredJobs(store);
    jobs.delete(jobs.put(20_000, "q", PAYLOAD_BYTES), "q");
    CompletableFuture<Void> compaction = CompletableFuture.runAsync(store::compact);
    store.close();

    // Either it finished before the close began, or the close stopped it; the process lives on.
    try {
      compaction.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(StorageException.class);
    }
    assertThat(compaction).isDone();
  }
}

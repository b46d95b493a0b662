package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.IndexQuery;
import io.sluice.engine.store.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RocksJobStore#checkpoint}: a point-in-time copy that opens as a store of its own. */
class CheckpointTest {
  private static final int PAYLOAD_BYTES = 200;

  @TempDir Path tmp;

  @Test
  void checkpointHoldsExactlyTheDataCommittedBeforeIt() {
    Path checkpoint = tmp.resolve("checkpoint");
    List<JobId> kept;
    try (RocksJobStore store = new RocksJobStore(new StoreConfig(tmp.resolve("data"), 8L << 20))) {
      StoredJobs jobs = new StoredJobs(store);
      List<JobId> created = jobs.put(3_000, "q", PAYLOAD_BYTES);
      jobs.delete(created.subList(0, 1_000), "q");
      kept = created.subList(1_000, created.size());

      store.checkpoint(checkpoint);

      // Changes after the checkpoint stay out of it.
      jobs.put(500, "q", PAYLOAD_BYTES);
      jobs.delete(kept.subList(0, 10), "q");
    }

    try (RocksJobStore copy = new RocksJobStore(new StoreConfig(checkpoint, 8L << 20))) {
      List<JobId> found = new ArrayList<>();
      copy.scanJobs(job -> found.add(job.id()));
      assertThat(found).containsExactlyElementsOf(kept);
      for (JobId id : List.of(kept.get(0), kept.get(kept.size() - 1))) {
        JobSnapshot job = copy.readJob(id);
        assertThat(job.queue()).isEqualTo("q");
        assertThat(copy.readPayload(id)).isEqualTo(StoredJobs.payload(id, PAYLOAD_BYTES));
      }
      assertThat(copy.countJobs(new IndexQuery(Set.of("q"), null, null))).isEqualTo(kept.size());
    }
  }

  @Test
  void checkpointIntoAnExistingDirectoryFails() throws Exception {
    Path existing = Files.createDirectory(tmp.resolve("taken"));
    try (RocksJobStore store = new RocksJobStore(new StoreConfig(tmp.resolve("data"), 8L << 20))) {
      assertThatThrownBy(() -> store.checkpoint(existing))
          .isInstanceOf(StorageException.class)
          .hasMessageContaining("checkpoint into");
    }
  }

  @Test
  void checkpointOfAClosedStoreFailsWithoutTouchingIt() {
    RocksJobStore store = new RocksJobStore(new StoreConfig(tmp.resolve("data"), 8L << 20));
    store.close();
    assertThatThrownBy(() -> store.checkpoint(tmp.resolve("late")))
        .isInstanceOf(StorageException.class)
        .hasMessageContaining("closing");
    assertThat(tmp.resolve("late")).doesNotExist();
  }
}

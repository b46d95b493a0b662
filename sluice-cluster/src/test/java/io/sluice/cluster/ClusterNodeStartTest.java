package io.sluice.cluster;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.Mutation;
import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node refuses to start where its store and its log would disagree. */
class ClusterNodeStartTest {
  @TempDir Path dir;

  @Test
  void aStoreWithJobsButNoRaftLogIsRefused() {
    StoreConfig storeConfig = new StoreConfig(dir.resolve("data"), 8L << 20);
    try (RocksJobStore single = new RocksJobStore(storeConfig)) {
      JobId id = new JobIdGenerator().next(1_700_000_000_000L);
      single.commit(new CommitBatch(List.of(new Mutation.PutJob(new JobSnapshot(id, "work", "q",
          32768, JobStatus.READY, 1_700_000_000_000L, 0, null, null, null, Job.NONE, Job.NONE,
          Job.NONE, Job.NONE, null))), false));
    }
    ClusterConfig config = new ClusterConfig("c", "n1",
        ClusterConfig.parsePeers("n1=127.0.0.1:1,n2=127.0.0.1:2,n3=127.0.0.1:3"),
        dir.resolve("raft"), false, Duration.ofMillis(500), 100, null);

    assertThatThrownBy(() -> ClusterNode.start(config, storeConfig, new Roles() {
      @Override
      public void leading(long term) {}

      @Override
      public void following(String leaderId) {}

      @Override
      public void stopped() {}
    })).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("the data directory holds jobs but")
        .hasMessageContaining("holds no Raft log");
  }
}

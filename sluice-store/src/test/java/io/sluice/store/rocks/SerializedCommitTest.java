package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.IndexQuery;
import io.sluice.engine.store.Mutation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit serialized on one store and written on another (a cluster's leader and follower)
 * leaves the second holding exactly what a direct commit leaves in the first, with the markers
 * written in the same atomic write.
 */
class SerializedCommitTest {
  @TempDir Path tmp;

  @Test
  void aSerializedCommitWrittenElsewhereMatchesTheDirectCommit() {
    JobIdGenerator ids = new JobIdGenerator();
    List<JobId> created = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      created.add(ids.next(StoredJobs.T0));
    }
    List<Mutation> puts = new ArrayList<>();
    for (JobId id : created) {
      puts.add(new Mutation.PutJob(StoredJobs.job(id, "q")));
      puts.add(new Mutation.PutPayload(id, StoredJobs.payload(id, 100)));
    }
    List<Mutation> deletes = new ArrayList<>();
    for (JobId id : created.subList(0, 20)) {
      deletes.add(new Mutation.DeleteJob(id, 0, IndexEntry.of(StoredJobs.job(id, "q"))));
    }
    byte[] key = "applied".getBytes(StandardCharsets.UTF_8);

    try (RocksJobStore leader = new RocksJobStore(new StoreConfig(tmp.resolve("a"), 8L << 20));
        RocksJobStore follower = new RocksJobStore(new StoreConfig(tmp.resolve("b"), 8L << 20))) {
      assertThat(follower.numbersFamiliesInCreationOrder()).isTrue();
      for (List<Mutation> mutations : List.of(puts, deletes)) {
        CommitBatch batch = new CommitBatch(mutations, false);
        byte[] serialized = leader.serialize(batch);
        leader.commit(batch);
        follower.writeSerialized(serialized,
            List.of(new RocksJobStore.Marker(key, new byte[] {(byte) mutations.size()})), false);
      }

      List<JobId> onFollower = new ArrayList<>();
      follower.scanJobs(job -> onFollower.add(job.id()));
      assertThat(onFollower).containsExactlyElementsOf(created.subList(20, 50));
      JobId kept = created.get(20);
      assertThat(follower.readPayload(kept)).isEqualTo(StoredJobs.payload(kept, 100));
      assertThat(follower.readPayload(created.get(0))).isNull();
      assertThat(follower.countJobs(new IndexQuery(Set.of("q"), null, null))).isEqualTo(30);
      assertThat(follower.readMarker(key)).containsExactly((byte) 20);
      assertThat(leader.readMarker(key)).isNull();
    }
  }
}

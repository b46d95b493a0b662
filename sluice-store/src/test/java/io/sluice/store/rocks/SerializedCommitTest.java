package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
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
import java.util.stream.Stream;
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
  void aFollowerHoldsThePayloadsOfRecordsAndOfTheirRewrites() {
    JobIdGenerator ids = new JobIdGenerator();
    JobId early = ids.next(StoredJobs.T0);
    JobId late = ids.next(StoredJobs.T0);
    JobSnapshot earlyJob = StoredJobs.job(early, "q");
    JobSnapshot lateJob = StoredJobs.job(late, "q");
    byte[] earlyPayload = StoredJobs.payload(early, 100);
    byte[] latePayload = StoredJobs.payload(late, 100);
    // The second batch rewrites a record from the first (its payload read from the leader's
    // store) and one written earlier in that same batch.
    List<List<Mutation>> batches = List.of(
        List.of(new Mutation.PutJob(earlyJob, null, true, earlyPayload)),
        List.of(new Mutation.PutJob(earlyJob.withStatus(JobStatus.SCHEDULED),
                IndexEntry.of(earlyJob), true, null),
            new Mutation.PutJob(lateJob, null, true, latePayload),
            new Mutation.PutJob(lateJob.withStatus(JobStatus.SCHEDULED), IndexEntry.of(lateJob),
                true, null)));

    try (RocksJobStore leader = new RocksJobStore(new StoreConfig(tmp.resolve("a"), 8L << 20));
        RocksJobStore follower = new RocksJobStore(new StoreConfig(tmp.resolve("b"), 8L << 20))) {
      for (List<Mutation> mutations : batches) {
        CommitBatch batch = new CommitBatch(mutations, false);
        byte[] serialized = leader.serialize(batch);
        leader.commit(batch);
        follower.writeSerialized(serialized, List.of(), false);
      }

      assertThat(follower.readPayload(early)).isEqualTo(earlyPayload);
      assertThat(follower.readPayload(late)).isEqualTo(latePayload);
      assertThat(follower.readJob(early).status()).isEqualTo(JobStatus.SCHEDULED);
      List<JobSnapshot> recovered = new ArrayList<>();
      follower.scanJobs(recovered::add);
      assertThat(recovered).extracting(JobSnapshot::payload)
          .containsExactly(earlyPayload, latePayload);
    }
  }

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
    // A job moved to another queue, one finished, one deleted: the in-memory part of the
    // follower's index follows the records it is sent.
    JobSnapshot moved = StoredJobs.job(created.get(20), "q");
    JobSnapshot finished = StoredJobs.job(created.get(21), "q");
    List<Mutation> changes = List.of(
        new Mutation.PutJob(moved.withNames("work", "r"), IndexEntry.of(moved)),
        new Mutation.PutJob(finished.withStatus(JobStatus.COMPLETED), IndexEntry.of(finished)),
        new Mutation.DeleteJob(created.get(22), 0, IndexEntry.of(StoredJobs.job(created.get(22),
            "q"))));
    byte[] key = "applied".getBytes(StandardCharsets.UTF_8);

    try (RocksJobStore leader = new RocksJobStore(new StoreConfig(tmp.resolve("a"), 8L << 20));
        RocksJobStore follower = new RocksJobStore(new StoreConfig(tmp.resolve("b"), 8L << 20))) {
      assertThat(follower.numbersFamiliesInCreationOrder()).isTrue();
      for (List<Mutation> mutations : List.of(puts, deletes, changes)) {
        CommitBatch batch = new CommitBatch(mutations, false);
        byte[] serialized = leader.serialize(batch);
        leader.commit(batch);
        follower.writeSerialized(serialized,
            List.of(new RocksJobStore.Marker(key, new byte[] {(byte) mutations.size()})), false);
      }

      List<JobId> onFollower = new ArrayList<>();
      follower.scanJobs(job -> onFollower.add(job.id()));
      assertThat(onFollower).containsExactlyElementsOf(
          Stream.concat(created.subList(20, 22).stream(), created.subList(23, 50).stream())
              .toList());
      JobId kept = created.get(20);
      assertThat(follower.readPayload(kept)).isEqualTo(StoredJobs.payload(kept, 100));
      assertThat(follower.readPayload(created.get(0))).isNull();
      for (IndexQuery query : List.of(new IndexQuery(Set.of("q"), null, null),
          new IndexQuery(Set.of("q"), null, Set.of(IndexEntry.State.UNFINISHED)),
          new IndexQuery(Set.of("r"), null, null),
          new IndexQuery(null, null, Set.of(IndexEntry.State.UNFINISHED)),
          new IndexQuery(null, Set.of("work"), Set.of(IndexEntry.State.COMPLETED)))) {
        assertThat(follower.countJobs(query)).as("%s", query).isEqualTo(leader.countJobs(query));
      }
      assertThat(follower.countJobs(new IndexQuery(Set.of("q"), null, null))).isEqualTo(28);
      assertThat(follower.countJobs(new IndexQuery(null, null,
          Set.of(IndexEntry.State.UNFINISHED)))).isEqualTo(28);
      assertThat(follower.readMarker(key)).containsExactly((byte) 3);
      assertThat(leader.readMarker(key)).isNull();
    }
  }
}

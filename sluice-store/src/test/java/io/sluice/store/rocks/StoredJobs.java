package io.sluice.store.rocks;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.Mutation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;

/** Writes and deletes jobs with payloads through the store's commit path, for the tests. */
final class StoredJobs {
  static final long T0 = 1_700_000_000_000L;
  private static final int BATCH = 1_000;

  private final JobIdGenerator ids = new JobIdGenerator();
  private final RocksJobStore store;

  StoredJobs(RocksJobStore store) {
    this.store = store;
  }

  static JobSnapshot job(JobId id, String queue) {
    return new JobSnapshot(id, "work", queue, 32768, JobStatus.READY, T0, 0, null, null, null,
        Job.NONE, Job.NONE, Job.NONE, Job.NONE, null);
  }

  /** The payload stored with job {@code id}: about {@code bytes} long, unique to the job. */
  static byte[] payload(JobId id, int bytes) {
    String text = "{\"id\":\"" + id + "\",\"pad\":\"" + "x".repeat(Math.max(0, bytes - 40))
        + "\"}";
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Enqueues {@code count} ready jobs in {@code queue}, a thousand per commit. */
  List<JobId> put(int count, String queue, int payloadBytes) {
    List<JobId> created = new ArrayList<>(count);
    List<Mutation> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      JobId id = ids.next(T0);
      created.add(id);
      batch.add(new Mutation.PutJob(job(id, queue)));
      batch.add(new Mutation.PutPayload(id, payload(id, payloadBytes)));
      if (batch.size() >= 2 * BATCH) {
        commit(batch);
      }
    }
    commit(batch);
    return created;
  }

  /** Deletes jobs written by {@link #put} into {@code queue}, with their index keys. */
  void delete(Collection<JobId> jobs, String queue) {
    List<Mutation> batch = new ArrayList<>();
    for (JobId id : jobs) {
      batch.add(new Mutation.DeleteJob(id, 0, IndexEntry.of(job(id, queue))));
      if (batch.size() >= BATCH) {
        commit(batch);
      }
    }
    commit(batch);
  }

  private void commit(List<Mutation> batch) {
    if (!batch.isEmpty()) {
      store.commit(new CommitBatch(List.copyOf(batch), false));
      batch.clear();
    }
  }

  /** The summed size of the table files in {@code dir}: what compaction rewrites. */
  static long tableBytes(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      long total = 0;
      for (Path file : files.filter(f -> f.toString().endsWith(".sst")).toList()) {
        total += Files.size(file);
      }
      return total;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

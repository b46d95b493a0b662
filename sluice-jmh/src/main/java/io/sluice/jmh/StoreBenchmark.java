package io.sluice.jmh;

import io.sluice.api.FileTrees;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.Mutation;
import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The store side of one job's life: its enqueue and its completion, each committed in a batch
 * of {@link HotPathJobs#JOBS} as a busy server commits them (buffered, no fsync). Per job.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StoreBenchmark {
  private final HotPathJobs jobs = new HotPathJobs();
  private Path dir;
  private RocksJobStore store;
  private CommitBatch enqueues;
  private CommitBatch completions;

  @Setup(Level.Trial)
  public void open() throws IOException {
    dir = Files.createTempDirectory("sluice-jmh-store-");
    store = new RocksJobStore(new StoreConfig(dir.resolve("data"), 64L << 20));
  }

  /** Every round stores new jobs, as a server does: rewriting the same keys is another load. */
  @Setup(Level.Invocation)
  public void nextJobs() {
    List<Mutation> puts = new ArrayList<>();
    List<Mutation> deletes = new ArrayList<>();
    for (JobSnapshot job : jobs.fresh()) {
      puts.add(new Mutation.PutJob(job, null));
      puts.add(new Mutation.PutPayload(job.id(), job.payload()));
      deletes.add(new Mutation.DeleteJob(job.id(), 0, IndexEntry.of(job)));
    }
    enqueues = new CommitBatch(puts, false);
    completions = new CommitBatch(deletes, false);
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    store.close();
    FileTrees.delete(dir);
  }

  /** How many of the benchmark's jobs still have a stored payload. */
  int storedPayloads() {
    int stored = 0;
    for (JobSnapshot job : jobs.jobs()) {
      if (store.readPayload(job.id()) != null) {
        stored++;
      }
    }
    return stored;
  }

  @Benchmark
  @OperationsPerInvocation(HotPathJobs.JOBS)
  public void enqueueAndComplete() {
    store.commit(enqueues);
    store.commit(completions);
  }
}

package io.sluice.jmh;

import io.sluice.engine.AckedIds;
import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Turn;
import io.sluice.engine.dispatch.JobSink;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.NewJob;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The engine's side of one job's life, without the wire or the store: a bulk enqueue of
 * {@link HotPathJobs#JOBS} jobs in one turn, then their drain by four take streams with a
 * prefetch of 16, each acknowledging its jobs in bulk and being refilled in the turn of its
 * acknowledgement, the shape of the peer harness's throughput workload. A turn ends as
 * {@code EngineLoop.turn} ends one with an inline commit: the turn's writes taken (and dropped
 * here), new jobs placed, a dispatch before the answers and one after. The streams are paced by
 * their writes, as the server's are: each delivery is reported written in a turn of its own.
 * Not modelled: turns that share several requests' commands ({@link IdleTurnBenchmark} has a
 * turn's fixed part on its own). Per job.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EngineBenchmark {
  private static final int STREAMS = 4;
  /** A full prefetch window is one bulk acknowledgement, as in the wire benchmark's bodies. */
  private static final int PREFETCH = HotPathJobs.ACK_IDS;
  private static final long NOW_MS = 1_764_000_000_000L;

  private final HotPathJobs jobs = new HotPathJobs();
  private final List<Worker> workers = new ArrayList<>();
  private Engine engine;
  private List<NewJob> requests;

  /** A take stream's worker: it holds what it was given until it acknowledges it. */
  static final class Worker implements JobSink {
    private final JobId[] held = new JobId[PREFETCH];
    private int holding;
    private WorkerSession session;
    /** A delivery the transport has not yet reported written. */
    private boolean unreported;
    int received;

    @Override
    public void deliver(List<JobSnapshot> delivered) {
      for (JobSnapshot job : delivered) {
        held[holding++] = job.id();
      }
      received += delivered.size();
      unreported = true;
    }

    @Override
    public boolean pacedByWrites() {
      return true;
    }

    /** The ids held, as one bulk acknowledgement; the worker then holds none. */
    AckedIds acknowledge() {
      AckedIds ids = new AckedIds(Arrays.copyOf(held, holding), null);
      holding = 0;
      return ids;
    }
  }

  @Setup(Level.Trial)
  public void open() {
    engine = new Engine(EngineConfig.defaults());
    for (int i = 0; i < STREAMS; i++) {
      Worker worker = new Worker();
      worker.session = engine.openSession(Set.of("bench"), PREFETCH, worker);
      workers.add(worker);
    }
  }

  /** Every round enqueues new jobs, as a server does. */
  @Setup(Level.Invocation)
  public void nextJobs() {
    List<NewJob> next = new ArrayList<>(HotPathJobs.JOBS);
    for (JobSnapshot job : jobs.fresh()) {
      next.add(new NewJob(job.id(), job.type(), job.queue(), NewJob.DEFAULT_PRIORITY, null, null,
          null, null, job.payload()));
    }
    requests = next;
  }

  @Benchmark
  @OperationsPerInvocation(HotPathJobs.JOBS)
  public int enqueueAndDrain() {
    engine.enqueueAll(requests, true, NOW_MS);
    endTurn();
    int acknowledged = 0;
    while (acknowledged < HotPathJobs.JOBS) {
      int before = acknowledged;
      for (Worker worker : workers) {
        AckedIds ids = worker.acknowledge();
        if (ids.size() > 0) {
          acknowledged += ids.size();
          List<String> notInFlight = engine.completeAll(ids, NOW_MS);
          if (!notInFlight.isEmpty()) {
            throw new IllegalStateException("acknowledged but not in flight: " + notInFlight);
          }
          endTurn();
        }
      }
      if (acknowledged == before) {
        throw new IllegalStateException(
            "no worker holds a job; " + acknowledged + " of " + HotPathJobs.JOBS + " acknowledged");
      }
    }
    return acknowledged;
  }

  private void endTurn() {
    engine.runDue(NOW_MS);
    Turn turn = engine.takeTurn();
    if (!turn.isEmpty()) {
      engine.turnDurable(turn, NOW_MS);
      engine.dispatch(NOW_MS);
    }
    engine.dispatch(NOW_MS);
    reportWrites();
  }

  /** Each delivery, once written, is reported in a turn of its own, as the server's streams do. */
  private void reportWrites() {
    for (Worker worker : workers) {
      if (worker.unreported) {
        worker.unreported = false;
        engine.sessionWritten(worker.session);
        endTurn();
      }
    }
  }

  /** Jobs the engine still holds. */
  int heldJobs() {
    return engine.jobCount();
  }

  /** Jobs delivered to the workers so far. */
  int received() {
    return workers.stream().mapToInt(worker -> worker.received).sum();
  }
}

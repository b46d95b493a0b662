package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.store.Mutation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How many turns the hosted engine takes: one per burst of commands, none after it. At a low
 * rate every job's enqueue, delivery report and acknowledgement is a burst of its own, and a turn
 * with nothing to apply still runs due work, a dispatch pass and a publication. The host here
 * runs its tasks only when the test says, on the test's thread, so every count is exact. Also: an
 * idle loop's commit thread does not wake.
 */
class EngineLoopTurnsTest {
  private final ManualHost host = new ManualHost();
  private final JobIdGenerator ids = new JobIdGenerator();
  private final ManualClock clock = new ManualClock();
  private EngineLoop loop;

  private final MemoryJobStore store = new MemoryJobStore();
  /** The commit thread of the loop started here. */
  private Thread committer;

  private void start(EngineLoop.CommitLimits limits) {
    Set<Thread> before = commitThreads();
    loop = new EngineLoop(new Engine(EngineConfig.defaults()), store, clock,
        new EngineLoop.CommitModes(false, false), limits);
    loop.hostOn(host);
    loop.start();
    host.runQueued();
    Set<Thread> started = commitThreads();
    started.removeAll(before);
    committer = started.iterator().next();
  }

  private static Set<Thread> commitThreads() {
    Set<Thread> threads = new HashSet<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.getName().equals("sluice-commit")) {
        threads.add(thread);
      }
    }
    return threads;
  }

  @AfterEach
  void stop() {
    if (loop != null) {
      loop.close();
      host.runQueued();
    }
  }

  private CompletableFuture<List<JobSnapshot>> enqueue() {
    NewJob job = new NewJob(ids.next(clock.millis()), "t", "q", NewJob.DEFAULT_PRIORITY, null,
        null, null, null, "{}".getBytes(StandardCharsets.UTF_8));
    return loop.submit(EngineLoop.Kind.ENQUEUE,
        (engine, nowMs) -> engine.enqueue(List.of(job), nowMs));
  }

  @Test
  void aCommandTakesOneTurnAndNoneAfterIt() {
    start(EngineLoop.CommitLimits.DEFAULTS);

    CompletableFuture<List<JobSnapshot>> enqueued = enqueue();

    assertThat(host.runQueued()).as("turns").isEqualTo(1);
    assertThat(enqueued).isCompleted();
  }

  @Test
  void aJobEnqueuedForAWaitingWorkerReachesItInTheEnqueuesTurn() {
    start(EngineLoop.CommitLimits.DEFAULTS);
    List<JobSnapshot> received = new ArrayList<>();
    loop.submit((engine, nowMs) -> engine.openSession(Set.of("q"), 0, received::addAll));
    host.runQueued();

    CompletableFuture<List<JobSnapshot>> enqueued = enqueue();

    assertThat(host.runQueued()).as("turns").isEqualTo(1);
    assertThat(received).extracting(JobSnapshot::id)
        .containsExactly(enqueued.join().get(0).id());
  }

  @Test
  void aDispatchThatClosesABatchHasItsWriteCommittedInATurnOfItsOwn() {
    start(EngineLoop.CommitLimits.DEFAULTS);
    List<JobSnapshot> received = new ArrayList<>();
    loop.submit((engine, nowMs) -> engine.openSession(Set.of("q"), 0, received::addAll));
    host.runQueued();

    NewJob batched = new NewJob(ids.next(clock.millis()), "t", "q", NewJob.DEFAULT_PRIORITY, null,
        null, null, null, "[1]".getBytes(StandardCharsets.UTF_8), List.of(), null,
        new BatchConfig("k", "max:3", "concat"));
    loop.submit(EngineLoop.Kind.ENQUEUE,
        (engine, nowMs) -> engine.enqueue(List.of(batched), nowMs));

    // The enqueue's turn writes the open batch's pointer, then dispatches the job, which closes
    // the batch: that deletion must reach the store without waiting for another command.
    assertThat(host.runQueued()).as("turns").isEqualTo(2);
    assertThat(received).hasSize(1);
    List<String> openBatches = new ArrayList<>();
    store.scanPointers(Mutation.Pointer.OPEN_BATCH, (key, id) -> openBatches.add(key));
    assertThat(openBatches).isEmpty();
  }

  @Test
  void commandsLeftOverByACommitLimitGetTheNextTurn() {
    start(new EngineLoop.CommitLimits(1, 1));

    CompletableFuture<List<JobSnapshot>> first = enqueue();
    CompletableFuture<List<JobSnapshot>> second = enqueue();

    assertThat(host.runQueued()).as("turns").isEqualTo(2);
    assertThat(first).isCompleted();
    assertThat(second).isCompleted();
  }

  @Test
  void theCommitThreadWaitsForWorkWithoutWakingAndStopsWithTheLoop() throws Exception {
    start(EngineLoop.CommitLimits.DEFAULTS);

    // It polled every 100 ms: ten wake-ups a second on an idle server.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (committer.getState() == Thread.State.RUNNABLE && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(committer.getState()).isEqualTo(Thread.State.WAITING);

    // Closed on its host, the loop leaves it in a task of the host's: the engine's own thread
    // then stops, and the commit thread after it.
    loop.close();
    host.runQueued();
    committer.join(TimeUnit.SECONDS.toMillis(5));
    assertThat(committer.isAlive()).isFalse();
    loop = null;
  }

  /**
   * A single-threaded host driven by the test: tasks wait in a queue until {@link #runQueued};
   * a scheduled task is only recorded (the tests here never let its time come).
   */
  private static final class ManualHost extends AbstractExecutorService
      implements ScheduledExecutorService {
    private final Queue<Runnable> queued = new ArrayDeque<>();
    private boolean shutdown;

    /** Runs the queued tasks, and those they queue, until none is left; returns how many ran. */
    int runQueued() {
      int ran = 0;
      Runnable task;
      while ((task = queued.poll()) != null) {
        task.run();
        ran++;
      }
      return ran;
    }

    @Override
    public void execute(Runnable command) {
      queued.add(command);
    }

    /** Runs at once: the loop asks its host for the host's thread this way when moving onto it. */
    @Override
    public <T> java.util.concurrent.Future<T> submit(Callable<T> task) {
      try {
        return CompletableFuture.completedFuture(task.call());
      } catch (Exception e) {
        return CompletableFuture.failedFuture(e);
      }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      return new NeverDue();
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      return new NeverDue<>();
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay,
        long period, TimeUnit unit) {
      return new NeverDue();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay,
        long delay, TimeUnit unit) {
      return new NeverDue();
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
      shutdown = true;
      return new ArrayList<>(queued);
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      return shutdown && queued.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return isTerminated();
    }
  }

  /** A scheduled task whose time never comes; it can be cancelled. */
  private static final class NeverDue<V> extends CompletableFuture<V>
      implements ScheduledFuture<V> {
    @Override
    public long getDelay(TimeUnit unit) {
      return Long.MAX_VALUE;
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }
  }
}

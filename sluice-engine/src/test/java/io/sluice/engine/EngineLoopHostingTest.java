package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.ForwardingJobStore;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.store.Mutation;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An engine hosted on another owner's single thread (as {@code sluice serve} hosts it on its one
 * event loop): turns run there, wake at the engine's deadlines without a command, coalesce a
 * burst of commands into one commit, and move back to the engine's own thread and again.
 */
class EngineLoopHostingTest {
  private final JobIdGenerator ids = new JobIdGenerator();
  private final List<CommitBatch> commits = new CopyOnWriteArrayList<>();
  private final ScheduledThreadPoolExecutor host =
      new ScheduledThreadPoolExecutor(1, runnable -> new Thread(runnable, "test-host"));
  private EngineLoop loop;

  @BeforeEach
  void start() {
    ForwardingJobStore store = new ForwardingJobStore(new MemoryJobStore()) {
      @Override
      public void commit(CommitBatch batch) {
        commits.add(batch);
        super.commit(batch);
      }
    };
    loop = new EngineLoop(new Engine(EngineConfig.defaults()), store, Clock.systemUTC(),
        new EngineLoop.CommitModes(false, false));
    loop.start();
    loop.hostOn(host);
  }

  @AfterEach
  void stop() throws InterruptedException {
    loop.close();
    host.shutdownNow();
    host.awaitTermination(10, TimeUnit.SECONDS);
  }

  private NewJob job(String queue, Long readyAtMs) {
    return new NewJob(ids.next(System.currentTimeMillis()), "t", queue, NewJob.DEFAULT_PRIORITY,
        readyAtMs, null, null, null, "{}".getBytes(StandardCharsets.UTF_8));
  }

  private CompletableFuture<List<JobSnapshot>> enqueue(NewJob job) {
    return loop.submit(EngineLoop.Kind.ENQUEUE,
        (engine, nowMs) -> engine.enqueue(List.of(job), nowMs));
  }

  private long jobsIn(CommitBatch batch) {
    return batch.mutations().stream().filter(Mutation.PutJob.class::isInstance).count();
  }

  @Test
  void commandsRunOnTheHostThread() throws Exception {
    String thread = loop.submit((engine, nowMs) -> Thread.currentThread().getName())
        .get(5, TimeUnit.SECONDS);

    assertThat(thread).isEqualTo("test-host");
  }

  @Test
  void aBurstSubmittedOnTheHostSharesOneTurnAndOneCommit() throws Exception {
    List<CompletableFuture<List<JobSnapshot>>> enqueued = new ArrayList<>();
    // As an event loop does: every request read in one pass submits before the turn runs.
    host.submit(() -> {
      for (int i = 0; i < 20; i++) {
        enqueued.add(enqueue(job("q", null)));
      }
    }).get(5, TimeUnit.SECONDS);
    for (CompletableFuture<List<JobSnapshot>> future : enqueued) {
      future.get(5, TimeUnit.SECONDS);
    }

    assertThat(commits).singleElement().satisfies(batch -> assertThat(jobsIn(batch)).isEqualTo(20));
  }

  @Test
  void aScheduledJobIsDeliveredAtItsTimeWithoutAnotherCommand() throws Exception {
    BlockingQueue<JobSnapshot> worker = new LinkedBlockingQueue<>();
    loop.call((engine, nowMs) -> engine.openSession(Set.of("q"), 0, worker::addAll));
    long readyAtMs = System.currentTimeMillis() + 150;

    enqueue(job("q", readyAtMs)).get(5, TimeUnit.SECONDS);

    assertThat(worker.poll(50, TimeUnit.MILLISECONDS)).as("not before its time").isNull();
    JobSnapshot delivered = worker.poll(5, TimeUnit.SECONDS);
    assertThat(delivered).as("woken by the host's timer").isNotNull();
    assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(readyAtMs);
  }

  @Test
  void theEngineLeavesItsHostAndComesBack() throws Exception {
    enqueue(job("q", null)).get(5, TimeUnit.SECONDS);

    loop.leaveHost();
    assertThat(loop.submit((engine, nowMs) -> Thread.currentThread().getName())
        .get(5, TimeUnit.SECONDS)).isEqualTo("sluice-engine");
    enqueue(job("q", null)).get(5, TimeUnit.SECONDS);

    loop.hostOn(host);
    assertThat(loop.submit((engine, nowMs) -> engine.jobCount()).get(5, TimeUnit.SECONDS))
        .isEqualTo(2);
    assertThat(loop.submit((engine, nowMs) -> Thread.currentThread().getName())
        .get(5, TimeUnit.SECONDS)).isEqualTo("test-host");
  }

  @Test
  void aMoveOntoTheHostWaitsForTheTurnRunningOnTheEngineThread() throws Exception {
    loop.leaveHost();
    CountDownLatch inTurn = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicReference<Thread> turnThread = new AtomicReference<>();
    CompletableFuture<String> longTurn = loop.submit((engine, nowMs) -> {
      turnThread.set(Thread.currentThread());
      inTurn.countDown();
      await(release);
      return Thread.currentThread().getName();
    });
    assertThat(inTurn.await(5, TimeUnit.SECONDS)).isTrue();
    Thread engineThread = turnThread.get();

    CompletableFuture<Void> moved = CompletableFuture.runAsync(() -> loop.hostOn(host));
    Thread.sleep(300);
    assertThat(moved).as("the move waits for the turn").isNotDone();
    release.countDown();

    moved.get(5, TimeUnit.SECONDS);
    assertThat(longTurn.get(5, TimeUnit.SECONDS)).isEqualTo("sluice-engine");
    assertThat(engineThread.isAlive()).as("the engine's own thread has stopped").isFalse();
    assertThat(loop.submit((engine, nowMs) -> Thread.currentThread().getName())
        .get(5, TimeUnit.SECONDS)).isEqualTo("test-host");
  }

  @Test
  void leavingTheHostFromInsideATurnWaitsForTheTurnToEnd() throws Exception {
    AtomicBoolean firstEnded = new AtomicBoolean();
    CountDownLatch leaveAsked = new CountDownLatch(1);
    CompletableFuture<Void> first = loop.submit((engine, nowMs) -> {
      loop.leaveHost();
      leaveAsked.countDown();
      sleep(200);
      firstEnded.set(true);
      return null;
    });
    // Submitted once the move is queued on the host: a second command sent while the first
    // turn starts could queue its turn on the host ahead of the move, and that turn would then
    // run on the host, where the last assertion expects the engine's own thread.
    assertThat(leaveAsked.await(5, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Boolean> secondSawTheFirstEnded =
        loop.submit((engine, nowMs) -> firstEnded.get());

    first.get(5, TimeUnit.SECONDS);
    assertThat(secondSawTheFirstEnded.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(loop.submit((engine, nowMs) -> Thread.currentThread().getName())
        .get(5, TimeUnit.SECONDS)).isEqualTo("sluice-engine");
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void commandsSubmittedBeforeACloseOnTheHostStillComplete() throws Exception {
    List<CompletableFuture<List<JobSnapshot>>> enqueued = new ArrayList<>();
    host.submit(() -> {
      for (int i = 0; i < 5; i++) {
        enqueued.add(enqueue(job("q", null)));
      }
      loop.close();
    }).get(15, TimeUnit.SECONDS);

    for (CompletableFuture<List<JobSnapshot>> future : enqueued) {
      assertThat(future.get(5, TimeUnit.SECONDS)).hasSize(1);
    }
  }
}

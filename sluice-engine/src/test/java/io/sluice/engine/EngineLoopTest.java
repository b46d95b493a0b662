package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.IndexQuery;
import io.sluice.engine.store.JobStore;
import io.sluice.engine.store.Mutation;
import io.sluice.engine.store.StorageException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine loop's threads and group commit: futures complete only once their turn is durable,
 * fsync turns go through the commit thread in order, and nothing is dispatched before its enqueue
 * is written. Real threads, so every wait is bounded.
 */
class EngineLoopTest {
  private final GatedStore store = new GatedStore();
  private final JobIdGenerator ids = new JobIdGenerator();
  private EngineLoop loop;

  @AfterEach
  void stop() {
    store.open();
    if (loop != null) {
      loop.close();
    }
  }

  /** Where the engine runs: here on its own thread; the hosted variant moves it onto a host. */
  @RegisterExtension
  final LoopHosts hosts = hosts();

  LoopHosts hosts() {
    return LoopHosts.ownThread();
  }

  private void start(boolean syncEnqueues, boolean syncOthers) {
    start(syncEnqueues, syncOthers, EngineLoop.CommitLimits.DEFAULTS);
  }

  private void start(boolean syncEnqueues, boolean syncOthers, EngineLoop.CommitLimits limits) {
    loop = new EngineLoop(new Engine(EngineConfig.defaults()), store, Clock.systemUTC(),
        new EngineLoop.CommitModes(syncEnqueues, syncOthers), limits);
    loop.start();
    hosts.place(loop);
  }

  private CompletableFuture<List<JobSnapshot>> enqueue(String queue) {
    NewJob job = new NewJob(ids.next(System.currentTimeMillis()), "t", queue,
        NewJob.DEFAULT_PRIORITY, null, null, null, null, "{}".getBytes(StandardCharsets.UTF_8));
    return loop.submit(EngineLoop.Kind.ENQUEUE,
        (engine, nowMs) -> engine.enqueue(List.of(job), nowMs));
  }


  private static long jobsWritten(CommitBatch batch) {
    return batch.mutations().stream().filter(Mutation.PutJob.class::isInstance).count();
  }

  private BlockingQueue<JobSnapshot> openWorker(String queue) {
    BlockingQueue<JobSnapshot> received = new LinkedBlockingQueue<>();
    loop.call((engine, nowMs) -> engine.openSession(java.util.Set.of(queue), 0, received::addAll));
    return received;
  }

  @Test
  void bufferedEnqueueIsWrittenBeforeItsFutureCompletes() throws Exception {
    start(false, false);

    JobSnapshot created = enqueue("q").get(5, TimeUnit.SECONDS).get(0);

    assertThat(store.batches).hasSize(1);
    assertThat(store.batches.get(0).sync()).isFalse();
    assertThat(store.batches.get(0).mutations())
        .extracting(m -> m.getClass().getSimpleName())
        .containsExactly("PutJob");
    Mutation.PutJob record = (Mutation.PutJob) store.batches.get(0).mutations().get(0);
    assertThat(record.job().id()).isEqualTo(created.id());
    assertThat(record.payloadInRecord()).isTrue();
  }

  @Test
  void fsyncEnqueueGoesThroughTheCommitThreadWithSync() throws Exception {
    start(true, false);

    enqueue("q").get(5, TimeUnit.SECONDS);

    assertThat(store.batches).singleElement().satisfies(b -> assertThat(b.sync()).isTrue());
  }

  @Test
  void laterTurnsWaitBehindAPendingFsyncCommit() throws Exception {
    start(true, false);
    store.shut();

    CompletableFuture<List<JobSnapshot>> enqueued = enqueue("q");
    store.awaitBlockedCommit();
    CompletableFuture<Integer> read = loop.submit((engine, nowMs) -> engine.jobCount());

    assertThat(read).as("a read must not overtake the commit before it").isNotDone();
    Thread.sleep(50);
    assertThat(read).isNotDone();
    assertThat(enqueued).isNotDone();

    store.open();
    assertThat(read.get(5, TimeUnit.SECONDS)).isEqualTo(1);
    assertThat(enqueued.get(5, TimeUnit.SECONDS)).hasSize(1);
  }

  @Test
  void aJobIsNotDispatchedBeforeItsEnqueueIsDurable() throws Exception {
    start(true, false);
    BlockingQueue<JobSnapshot> worker = openWorker("q");
    store.shut();

    CompletableFuture<List<JobSnapshot>> enqueued = enqueue("q");
    store.awaitBlockedCommit();

    assertThat(worker.poll(100, TimeUnit.MILLISECONDS)).isNull();
    store.open();
    JobSnapshot delivered = worker.poll(5, TimeUnit.SECONDS);
    assertThat(delivered).isNotNull();
    assertThat(delivered.id()).isEqualTo(enqueued.get(5, TimeUnit.SECONDS).get(0).id());
  }

  /** A job enqueued to a waiting worker reaches it before its turn's answers are written. */
  @Test
  void aTurnsDeliveriesGoOutBeforeItsAnswers() throws Exception {
    start(false, false);
    List<String> events = new CopyOnWriteArrayList<>();
    loop.call((engine, nowMs) -> engine.openSession(java.util.Set.of("q"), 0,
        jobs -> events.add("delivered " + jobs.size())));
    CountDownLatch release = HeldTurn.hold(loop);

    CompletableFuture<List<JobSnapshot>> enqueued = enqueue("q");
    CompletableFuture<Void> answered = enqueued.thenRun(() -> events.add("answered"));
    release.countDown();

    answered.get(5, TimeUnit.SECONDS);
    assertThat(events).containsExactly("delivered 1", "answered");
  }

  /** A job deleted in the turn that created it is never placed once that turn is durable. */
  @Test
  void aJobDeletedBeforeItsEnqueueIsDurableIsNeverDispatched() throws Exception {
    start(false, false);
    BlockingQueue<JobSnapshot> worker = openWorker("q");
    CountDownLatch release = HeldTurn.hold(loop);

    JobId doomed = ids.next(System.currentTimeMillis());
    NewJob job = new NewJob(doomed, "t", "q", NewJob.DEFAULT_PRIORITY, null, null, null, null,
        "{}".getBytes(StandardCharsets.UTF_8));
    CompletableFuture<List<JobSnapshot>> enqueued = loop.submit(EngineLoop.Kind.ENQUEUE,
        (engine, nowMs) -> engine.enqueue(List.of(job), nowMs));
    CompletableFuture<Object> deleted = loop.submit((engine, nowMs) -> {
      engine.delete(doomed, nowMs);
      return null;
    });
    release.countDown();

    deleted.get(5, TimeUnit.SECONDS);
    assertThat(enqueued.get(5, TimeUnit.SECONDS)).hasSize(1);
    JobSnapshot kept = enqueue("q").get(5, TimeUnit.SECONDS).get(0);
    assertThat(worker.poll(5, TimeUnit.SECONDS)).extracting(JobSnapshot::id)
        .isEqualTo(kept.id());
    assertThat(worker.poll(100, TimeUnit.MILLISECONDS)).isNull();
    int held = loop.call((engine, nowMs) -> engine.jobCount());
    assertThat(held).isEqualTo(1);
  }

  @Test
  void everyDeliveryChargedToADurableBudgetFollowsAWriteOfItsTokenState() throws Exception {
    start(false, false);
    loop.call((engine, nowMs) -> engine.budgetAdmin().put("durable",
        new PolicySpec(1_000, "time_based", 60_000L, null, true), nowMs));
    List<Long> stateWritesAtDelivery = new CopyOnWriteArrayList<>();
    BlockingQueue<JobSnapshot> received = new LinkedBlockingQueue<>();
    loop.call((engine, nowMs) -> engine.openSession(java.util.Set.of("q"), 0, jobs -> {
      stateWritesAtDelivery.add(stateWrites());
      received.addAll(jobs);
    }));

    List<CompletableFuture<List<JobSnapshot>>> enqueued = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      NewJob job = new NewJob(ids.next(System.currentTimeMillis()), "t", "q",
          NewJob.DEFAULT_PRIORITY, null, null, null, null,
          "{}".getBytes(StandardCharsets.UTF_8), List.of(new BindingRequest("durable", 1L, null)));
      enqueued.add(loop.submit(EngineLoop.Kind.ENQUEUE,
          (engine, nowMs) -> engine.enqueue(List.of(job), nowMs)));
    }
    for (CompletableFuture<List<JobSnapshot>> each : enqueued) {
      each.get(5, TimeUnit.SECONDS);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (received.size() < 200 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }

    assertThat(received).hasSize(200);
    // Each dispatch pass charged the budget and so wrote its state once before delivering: the
    // n-th delivery comes after at least n writes of the state.
    for (int n = 0; n < stateWritesAtDelivery.size(); n++) {
      assertThat(stateWritesAtDelivery.get(n)).as("state writes before delivery %d", n + 1)
          .isGreaterThanOrEqualTo(n + 1L);
    }
  }

  private long stateWrites() {
    return store.batches.stream().filter(batch -> batch.mutations().stream()
        .anyMatch(Mutation.PutBucketState.class::isInstance)).count();
  }

  @Test
  void aFailedCommitFailsItsCallersAndDispatchesNothing() throws Exception {
    start(false, false);
    BlockingQueue<JobSnapshot> worker = openWorker("q");
    store.failNextCommit();

    CompletableFuture<List<JobSnapshot>> enqueued = enqueue("q");

    assertThatThrownBy(() -> enqueued.get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(StorageException.class);
    assertThat(worker.poll(100, TimeUnit.MILLISECONDS)).isNull();
  }

  @Test
  void turnsAreWrittenInTheOrderTheyWereApplied() throws Exception {
    start(true, false);
    store.shut();
    CompletableFuture<List<JobSnapshot>> first = enqueue("a");
    store.awaitBlockedCommit();
    CompletableFuture<List<JobSnapshot>> second = enqueue("b");
    CompletableFuture<List<JobSnapshot>> third = enqueue("c");

    store.open();
    JobId firstId = first.get(5, TimeUnit.SECONDS).get(0).id();
    JobId secondId = second.get(5, TimeUnit.SECONDS).get(0).id();
    JobId thirdId = third.get(5, TimeUnit.SECONDS).get(0).id();

    assertThat(store.batches.stream()
            .flatMap(b -> b.mutations().stream())
            .filter(Mutation.PutJob.class::isInstance)
            .map(m -> ((Mutation.PutJob) m).job().id()))
        .containsExactly(firstId, secondId, thirdId);
  }

  @Test
  void aTurnAppliesAtMostTheEnqueueLimitAndLeavesTheRestForTheNext() throws Exception {
    start(false, false, new EngineLoop.CommitLimits(2, 1000));
    CountDownLatch release = HeldTurn.hold(loop);
    List<CompletableFuture<List<JobSnapshot>>> enqueued = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      enqueued.add(enqueue("q"));
    }

    release.countDown();
    for (CompletableFuture<List<JobSnapshot>> future : enqueued) {
      future.get(5, TimeUnit.SECONDS);
    }

    assertThat(store.batches).allSatisfy(b -> assertThat(jobsWritten(b)).isLessThanOrEqualTo(2));
    assertThat(store.batches.stream().mapToLong(EngineLoopTest::jobsWritten).sum()).isEqualTo(5);
  }

  @Test
  void turnsQueuedBehindAnFsyncAreCoalescedOnlyUpToTheEnqueueLimit() throws Exception {
    start(true, false, new EngineLoop.CommitLimits(3, 1000));
    store.shut();
    CompletableFuture<List<JobSnapshot>> first = enqueue("a");
    store.awaitBlockedCommit();
    List<CompletableFuture<List<JobSnapshot>>> queued = new java.util.ArrayList<>();
    for (int i = 0; i < 7; i++) {
      queued.add(enqueue("b"));
    }
    // Applied after the enqueues, so once it runs every one of them is queued behind the commit.
    CountDownLatch appliedAll = new CountDownLatch(1);
    loop.submit((engine, nowMs) -> {
      appliedAll.countDown();
      return null;
    });
    assertThat(appliedAll.await(5, TimeUnit.SECONDS)).isTrue();

    store.open();
    first.get(5, TimeUnit.SECONDS);
    for (CompletableFuture<List<JobSnapshot>> future : queued) {
      future.get(5, TimeUnit.SECONDS);
    }

    assertThat(store.batches).allSatisfy(b -> assertThat(jobsWritten(b)).isLessThanOrEqualTo(3));
    assertThat(store.batches.stream().mapToLong(EngineLoopTest::jobsWritten).sum()).isEqualTo(8);
  }

  @Test
  void theCompletionLimitDoesNotHoldBackEnqueues() throws Exception {
    start(false, false, new EngineLoop.CommitLimits(1000, 1));
    CountDownLatch release = HeldTurn.hold(loop);
    List<CompletableFuture<List<JobSnapshot>>> enqueued = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      enqueued.add(enqueue("q"));
    }

    release.countDown();
    for (CompletableFuture<List<JobSnapshot>> future : enqueued) {
      future.get(5, TimeUnit.SECONDS);
    }

    assertThat(store.batches).singleElement()
        .satisfies(b -> assertThat(jobsWritten(b)).isEqualTo(4));
  }

  /** Records commits; while shut, a commit blocks until opened (a slow fsync). */
  private static final class GatedStore implements JobStore {
    final List<CommitBatch> batches = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private final CountDownLatch blocked = new CountDownLatch(1);
    private volatile boolean failNext;

    void shut() {
      gate = new CountDownLatch(1);
    }

    void open() {
      gate.countDown();
    }

    void failNextCommit() {
      failNext = true;
    }

    void awaitBlockedCommit() throws InterruptedException {
      assertThat(blocked.await(5, TimeUnit.SECONDS)).as("a commit reached the store").isTrue();
    }

    @Override
    public void commit(CommitBatch batch) {
      if (failNext) {
        failNext = false;
        throw new StorageException("commit", new RuntimeException("disk full"));
      }
      blocked.countDown();
      try {
        if (!gate.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("test never opened the gate");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      batches.add(batch);
    }

    @Override
    public void scanBudgets(Consumer<io.sluice.engine.budget.BudgetView> sink) {}

    @Override
    public void scanBucketStates(
        java.util.function.BiConsumer<String, io.sluice.engine.budget.BucketState> sink) {}

    @Override
    public void scanJobs(Consumer<JobSnapshot> sink) {}

    @Override
    public JobScan scanJobs(JobId after, boolean descending) {
      throw new UnsupportedOperationException();
    }

    @Override
    public JobScan scanJobs(IndexQuery query, JobId after, boolean descending) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long countJobs(IndexQuery query) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void scanPointers(Mutation.Pointer kind, BiConsumer<String, JobId> sink) {}

    @Override
    public void scanCronGroups(BiConsumer<String, byte[]> sink) {}

    @Override
    public JobSnapshot readJob(JobId id) {
      return null;
    }

    @Override
    public byte[] readPayload(JobId id) {
      return null;
    }

    @Override
    public List<ErrorRecord> readErrors(JobId id, long afterAttempt, boolean descending,
        int limit) {
      return List.of();
    }

    @Override
    public ErrorRecord readError(JobId id, long attempt) {
      return null;
    }

    @Override
    public void close() {}
  }
}

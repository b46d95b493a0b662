package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobPatch;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.store.StorageException;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The loop's side of "a failed commit changes nothing": the store fails one turn's commit; every
 * request of that turn fails; the engine's state is then what it was before the turn (compared
 * through {@link Engine#describe}, at the same manual time); and the loop keeps serving, the
 * stream that held a job whose ack failed holding it still. Run with commits written inline and
 * with every commit fsynced on the commit thread.
 */
class EngineLoopRollbackTest {
  private final ManualClock clock = new ManualClock();
  private final MemoryJobStore store = new MemoryJobStore();
  private final JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(13));
  private EngineLoop loop;

  @AfterEach
  void stop() {
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

  private void start(boolean syncEverything) {
    Engine engine =
        new Engine(EngineConfig.defaults(), BatchExpressions.NONE, ids, ZoneOffset.UTC);
    loop = new EngineLoop(engine, store, clock,
        new EngineLoop.CommitModes(syncEverything, syncEverything));
    loop.start();
    hosts.place(loop);
  }

  private NewJob job(String queue, List<BindingRequest> budgets) {
    return new NewJob(ids.next(clock.millis()), "t", queue, NewJob.DEFAULT_PRIORITY, null, null,
        null, null, "{\"n\":1}".getBytes(StandardCharsets.UTF_8), budgets);
  }

  private CompletableFuture<List<JobSnapshot>> enqueue(NewJob job) {
    return loop.submit(EngineLoop.Kind.ENQUEUE, (e, now) -> e.enqueue(List.of(job), now));
  }

  private String state() {
    return loop.call((e, now) -> e.describe(now));
  }

  @ParameterizedTest(name = "fsync every commit: {0}")
  @ValueSource(booleans = {false, true})
  void aTurnWhoseCommitFailsLeavesTheEngineAsItWasAndTheLoopServing(boolean syncEverything)
      throws Exception {
    start(syncEverything);
    PolicySpec twoAtATime = new PolicySpec(2, "while_in_flight", null, null);
    List<BindingRequest> bound = List.of(new BindingRequest("pool", 1L, twoAtATime));
    JobId held = enqueue(job("q", bound)).get(5, TimeUnit.SECONDS).get(0).id();
    JobId waiting = enqueue(job("q", bound)).get(5, TimeUnit.SECONDS).get(0).id();
    JobId ready = enqueue(job("other", List.of())).get(5, TimeUnit.SECONDS).get(0).id();
    BlockingQueue<JobSnapshot> worker = new LinkedBlockingQueue<>();
    loop.call((e, now) -> e.openSession(Set.of("q"), 1, worker::addAll));
    assertThat(worker.poll(5, TimeUnit.SECONDS).id()).isEqualTo(held);
    String before = state();

    store.failNextCommit(new StorageException("commit", new java.io.IOException("disk full")));
    CountDownLatch release = HeldTurn.hold(loop);
    List<CompletableFuture<?>> turn = new ArrayList<>();
    turn.add(loop.submit(EngineLoop.Kind.COMPLETE, (e, now) -> {
      e.complete(held, now);
      return null;
    }));
    turn.add(enqueue(job("q", bound)));
    turn.add(loop.submit((e, now) -> e.patch(ready, patchPriority(1), now)));
    turn.add(loop.submit((e, now) -> {
      e.delete(waiting, now);
      return null;
    }));
    turn.add(loop.submit((e, now) -> e.budgetAdmin().put("pool",
        new PolicySpec(5, "while_in_flight", null, null), now)));
    release.countDown();

    for (CompletableFuture<?> request : turn) {
      assertThatThrownBy(() -> request.get(5, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(StorageException.class);
    }
    assertThat(state()).isEqualTo(before);

    loop.submit(EngineLoop.Kind.COMPLETE, (e, now) -> {
      e.complete(held, now);
      return null;
    }).get(5, TimeUnit.SECONDS);
    assertThat(worker.poll(5, TimeUnit.SECONDS).id())
        .as("the job the failed turn had deleted is still there, and next in its budget")
        .isEqualTo(waiting);
    JobSnapshot patched = loop.call((e, now) -> e.get(ready, now));
    assertThat(patched.priority()).isEqualTo(NewJob.DEFAULT_PRIORITY);
    assertThat(patched.status()).isEqualTo(JobStatus.READY);
    long allocation = loop.call((e, now) -> e.budgetAdmin().get("pool").policy().allocation());
    assertThat(allocation).isEqualTo(2);
    assertThat(enqueue(job("other", List.of())).get(5, TimeUnit.SECONDS)).hasSize(1);
    assertThat(store.readJob(held))
        .as("completed with no retention (the default): the second ack was written")
        .isNull();
  }

  private static JobPatch patchPriority(int priority) {
    return new JobPatch(null, priority, false, null, false, null, false, null, false, false,
        false, null, false, null);
  }
}

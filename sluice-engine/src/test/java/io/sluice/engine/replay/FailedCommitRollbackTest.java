package io.sluice.engine.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Turn;
import io.sluice.engine.budget.BindingChange;
import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.cron.CronExpression;
import io.sluice.engine.cron.EntrySpec;
import io.sluice.engine.cron.GroupSpec;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobPatch;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.UniqueKey;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.store.StorageException;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A turn whose commit fails leaves no trace (issue 13): after {@link Engine#rollBack} the state
 * described is the one before the turn, in every part the turn changed: jobs, budgets and their
 * buckets, the ready index, waiting queues and wake-ups, unique claims, open batches, cron groups
 * and what each open stream holds. Driven turn by turn in the loop's order, on the test thread.
 *
 * <p>Before the failed turn: two streams hold jobs (one bound to a concurrency budget, one to a
 * rate budget), jobs wait in both budgets, one is scheduled, a batch is open, a key is claimed and
 * a cron group exists. The failed turn touches all of it.
 */
class FailedCommitRollbackTest {
  private static final long T0 = ReplayRun.START_MS;
  /** The failed turn's instant: later than the set-up, so a drip has accrued meanwhile. */
  private static final long T1 = T0 + 7_000;

  private final JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(13));
  private final Engine engine = new Engine(EngineConfig.defaults(), new ConcatBatches(), ids,
      ZoneOffset.UTC);
  private final MemoryJobStore store = new MemoryJobStore();
  private final LoopTurns loop = new LoopTurns(engine, store);
  private final List<JobSnapshot> toWork = new ArrayList<>();
  private final List<JobSnapshot> toRated = new ArrayList<>();

  /** Held by the work stream: one unique, one bound to the concurrency budget. */
  private JobId heldUnique;
  private JobId heldBound;
  /** Held by the rated stream, bound to the rate budget. */
  private JobId heldRated;
  /** Waiting in the concurrency budget, and in the rate budget (its wake-up armed). */
  private JobId waitingBound;
  private JobId waitingRated;
  private JobId scheduled;
  private JobId idle;
  private JobId openBatch;

  @BeforeEach
  void committedTurnsWithStreamsHoldingJobs() {
    loop.turn(T0, (e, now) -> {
      e.budgetAdmin().put("slots", concurrency(1), now);
      e.budgetAdmin().put("rate", rate(1, 60_000), now);
      e.budgetAdmin().put("spare", concurrency(5), now);
      e.crons().putGroup("nightly", cronGroup("reports"), now);
      return null;
    });
    heldUnique = enqueue(T0, job("work").unique("order-1"));
    heldBound = enqueue(T0, job("work").budget("slots"));
    waitingBound = enqueue(T0, job("work").budget("slots"));
    heldRated = enqueue(T0, job("rated").budget("rate"));
    waitingRated = enqueue(T0, job("rated").budget("rate"));
    scheduled = enqueue(T0, job("work").readyAtMs(T0 + 600_000));
    idle = enqueue(T0, job("idle"));
    openBatch = enqueue(T0, job("idle").batch("digest", 1));
    loop.turn(T0 + 1_000, (e, now) -> e.openSession(Set.of("work"), 3, toWork::addAll));
    loop.turn(T0 + 2_000, (e, now) -> e.openSession(Set.of("rated"), 1, toRated::addAll));

    assertThat(toWork).extracting(JobSnapshot::id).containsExactly(heldUnique, heldBound);
    assertThat(toRated).extracting(JobSnapshot::id).containsExactly(heldRated);
    // The loop's turn at T1 with no command: whatever is due by then is done and committed.
    loop.end(T1);
    assertThat(engine.describe(T1)).contains("wakes {" + waitingRated + "=" + (T0 + 62_000))
        .contains("claims {order-1=" + heldUnique + "}")
        .contains("open-batches {digest=" + openBatch + "}");
  }

  @Test
  void aFailedTurnIsUndoneInEveryPartItChanged() {
    String before = engine.describe(T1);

    Turn failed = failedTurnTouchingEverything();

    Map<String, List<String>> was = StateSections.of(before);
    Map<String, List<String>> changed = StateSections.of(engine.describe(T1));
    for (String part : List.of("jobs", "ready", "scheduled", "wakes", "budgets", "waiting",
        "claims", "open-batches", "crons", "streams")) {
      assertThat(changed.get(part)).as("the failed turn changed the %s", part)
          .isNotEqualTo(was.get(part));
    }

    engine.rollBack(store, List.of(failed), T1);

    assertThat(StateSections.of(engine.describe(T1))).isEqualTo(was);
  }

  @Test
  void aHeadWaitingForTheDripIsArmedAgainWhenTheTokenWentToAFinishedJob() {
    loop.turn(T1, (e, now) -> {
      e.complete(heldRated, now);
      return null;
    });
    loop.turn(T1, (e, now) -> {
      e.delete(waitingRated, now);
      return null;
    });
    JobId waiting = enqueue(T1, job("rated").budget("rate"));
    String before = engine.describe(T1);
    assertThat(before).contains("wakes {" + waiting + "=" + (T0 + 62_000) + "}");

    engine.enqueueAll(List.of(job("idle").build(T1)), false, T1);
    engine.rollBack(store, List.of(takeFailingTurn()), T1);

    // Recovery finds the head affordable with a full bucket; once the bucket of before is
    // carried over, the head must wait for the drip again.
    assertThat(StateSections.of(engine.describe(T1))).isEqualTo(StateSections.of(before));
  }

  @Test
  void aSlotReturnedAfterItsBudgetWasReplacedInTheFailedTurnIsHeldAgainWithoutDebt() {
    String before = engine.describe(T1);
    engine.budgetAdmin().put("slots", concurrency(1), T1);
    engine.complete(heldBound, T1);

    engine.rollBack(store, List.of(takeFailingTurn()), T1);

    assertThat(StateSections.of(engine.describe(T1))).isEqualTo(StateSections.of(before));
  }

  @Test
  void aSlotReturnedBeforeItsBudgetWasReplacedInTheFailedTurnIsHeldAgain() {
    String before = engine.describe(T1);
    engine.complete(heldBound, T1);
    engine.budgetAdmin().put("slots", concurrency(1), T1);

    engine.rollBack(store, List.of(takeFailingTurn()), T1);

    assertThat(StateSections.of(engine.describe(T1))).isEqualTo(StateSections.of(before));
  }

  @Test
  void twoFailedTurnsAreUndoneTogether() {
    String before = engine.describe(T1);
    engine.budgetAdmin().put("rate", rate(5, 60_000), T1);
    engine.complete(heldBound, T1);
    Turn first = takeFailingTurn();
    engine.budgetAdmin().put("rate", rate(3, 1_000), T1);
    engine.complete(heldRated, T1);
    engine.delete(waitingRated, T1);
    Turn second = takeFailingTurn();

    engine.rollBack(store, List.of(first, second), T1);

    // The rate bucket is the one from before the first turn, not the second's pre-image.
    assertThat(StateSections.of(engine.describe(T1))).isEqualTo(StateSections.of(before));
  }

  @Test
  void theStreamsKeepTheirJobsAndTheEngineKeepsWorking() {
    Turn failed = failedTurnTouchingEverything();
    engine.rollBack(store, List.of(failed), T1);
    loop.end(T1);

    // Nothing is delivered again: the workers still have what they were handed.
    assertThat(toWork).extracting(JobSnapshot::id).containsExactly(heldUnique, heldBound);
    // The ack that the failed turn lost is taken now: the job is still the work stream's, and
    // its slot in the concurrency budget goes to the job waiting for it.
    loop.turn(T1, (e, now) -> {
      e.complete(heldBound, now);
      return null;
    });
    assertThat(toWork).extracting(JobSnapshot::id).endsWith(heldBound, waitingBound);
    JobId fresh = enqueue(T1, job("work"));
    assertThat(toWork).extracting(JobSnapshot::id).endsWith(waitingBound, fresh);
    loop.turn(T1, (e, now) -> {
      e.complete(fresh, now);
      e.complete(waitingBound, now);
      e.fail(heldUnique, new FailureReport("boom", null, null, now + 1, false, 0), now);
      return null;
    });
    // Completed jobs are kept 0 ms by default: both are gone from the store too.
    assertThat(store.readJob(fresh)).isNull();
    assertThat(store.readJob(waitingBound)).isNull();
    assertThat(store.readJob(heldUnique).status()).isEqualTo(JobStatus.SCHEDULED);
    assertThat(toRated).extracting(JobSnapshot::id).containsExactly(heldRated);
  }

  /**
   * One turn at {@link #T1} whose commands change every part of the state, taken and not
   * committed because the store fails: what {@code EngineLoop} sees when a commit throws.
   */
  private Turn failedTurnTouchingEverything() {
    engine.enqueueAll(List.of(job("idle").unique("order-2").createBudget("fresh").build(T1)),
        false, T1);
    engine.enqueueAll(List.of(job("idle").batch("digest", 1).build(T1)), false, T1);
    engine.complete(heldBound, T1);
    engine.fail(heldUnique, new FailureReport("boom", null, null, T1 + 5_000, false, 0), T1);
    engine.patch(scheduled, new JobPatch(null, 1, true, null, false, null, false, null, false,
        false, false, null, false, null), T1);
    engine.delete(idle, T1);
    engine.changeBindings(waitingBound, new BindingChange.Remove("slots"), T1);
    engine.budgetAdmin().put("rate", rate(5, 60_000), T1);
    engine.budgetAdmin().delete("spare");
    engine.crons().putGroup("hourly", cronGroup("idle"), T1);
    return takeFailingTurn();
  }

  /** Ends the turn at {@link #T1} as the loop does, up to its commit, which the store fails. */
  private Turn takeFailingTurn() {
    engine.runDue(T1);
    Turn turn = engine.takeTurn();
    store.failNextCommit(new StorageException("commit", new IllegalStateException("disk full")));
    assertThatThrownBy(() -> store.commit(new CommitBatch(turn.mutations(), true)))
        .isInstanceOf(StorageException.class);
    return turn;
  }

  // ---- requests ------------------------------------------------------------------------------

  private JobId enqueue(long nowMs, Request request) {
    return loop.turn(nowMs,
        (e, now) -> e.enqueueAll(List.of(request.build(now)), false, now).get(0).job().id());
  }

  private Request job(String queue) {
    return new Request(queue);
  }

  private static PolicySpec concurrency(long allocation) {
    return new PolicySpec(allocation, "while_in_flight", null, null);
  }

  private static PolicySpec rate(long allocation, long durationMs) {
    return new PolicySpec(allocation, "time_based", durationMs, null);
  }

  private static GroupSpec cronGroup(String queue) {
    NewJob template = new NewJob(null, "report", queue, 0, null, null, null, null,
        ConcatBatches.payload(1));
    return new GroupSpec(null, null, List.of(new EntrySpec("daily",
        CronExpression.parse("0 3 * * *"), null, null, template)));
  }

  /** An enqueue request under construction. */
  private final class Request {
    private final String queue;
    private Long readyAtMs;
    private BindingRequest binding;
    private UniqueKey unique;
    private String batchKey;
    private int batchMaxItems;

    Request(String queue) {
      this.queue = queue;
    }

    Request budget(String key) {
      binding = new BindingRequest(key, 1L, null);
      return this;
    }

    Request createBudget(String key) {
      binding = new BindingRequest(key, 1L, concurrency(2));
      return this;
    }

    Request unique(String key) {
      unique = new UniqueKey(key, UniqueKey.Scope.ACTIVE);
      return this;
    }

    /** A batched job folding while the batch has at most {@code maxItems} items. */
    Request batch(String key, int maxItems) {
      batchKey = key;
      batchMaxItems = maxItems;
      return this;
    }

    Request readyAtMs(long readyAtMs) {
      this.readyAtMs = readyAtMs;
      return this;
    }

    NewJob build(long nowMs) {
      return new NewJob(ids.next(nowMs), "t", queue, 1, readyAtMs, null, null, null,
          ConcatBatches.payload(1), binding == null ? List.of() : List.of(binding), unique,
          batchKey == null ? null : ConcatBatches.config(batchKey, batchMaxItems));
    }
  }
}

package io.sluice.engine;

import static io.sluice.engine.EngineHarness.failureRetryingAt;
import static io.sluice.engine.EngineHarness.killingFailure;
import static io.sluice.engine.EngineHarness.whileInFlight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.Enqueued;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import io.sluice.engine.job.UniqueKey.Scope;
import io.sluice.engine.store.Mutation;
import io.sluice.engine.store.Mutation.DeletePointer;
import io.sluice.engine.store.Mutation.PutPointer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Unique jobs in the engine (API.md §4.5): who holds a key's claim through every transition of
 * each scope, what an incoming enqueue duplicates, the claim pointers written, and what a restart
 * keeps (UniqueClaims, Engine.enqueueAll, Engine.recoverClaim).
 */
class EngineUniqueTest {
  private static final Mutation.Pointer CLAIM = Mutation.Pointer.UNIQUE_CLAIM;

  private final JobIdGenerator ids = new JobIdGenerator();
  private EngineHarness h = EngineHarness.create();

  // ---- request building ----------------------------------------------------------------------

  /** A unique enqueue request on queue "a" with server defaults. */
  private static U u(String key, Scope scope) {
    return new U(key, scope);
  }

  private static final class U {
    private final String key;
    private final Scope scope;
    private String queue = "a";
    private String type = "unique_job";
    private int priority = NewJob.DEFAULT_PRIORITY;
    private Long readyAtMs;
    private Integer retryLimit;
    private RetentionPolicy retention;
    private final List<BindingRequest> budgets = new ArrayList<>();

    private U(String key, Scope scope) {
      this.key = key;
      this.scope = scope;
    }

    U queue(String queue) {
      this.queue = queue;
      return this;
    }

    U type(String type) {
      this.type = type;
      return this;
    }

    U priority(int priority) {
      this.priority = priority;
      return this;
    }

    U readyAtMs(long readyAtMs) {
      this.readyAtMs = readyAtMs;
      return this;
    }

    U retryLimit(int retryLimit) {
      this.retryLimit = retryLimit;
      return this;
    }

    U retention(Long completedMs, Long deadMs) {
      this.retention = new RetentionPolicy(completedMs, deadMs);
      return this;
    }

    U budget(BindingRequest binding) {
      budgets.add(binding);
      return this;
    }

    NewJob toNewJob(JobId id) {
      return new NewJob(id, type, queue, priority, readyAtMs, retryLimit, null, retention,
          "{\"k\":1}".getBytes(StandardCharsets.UTF_8), List.copyOf(budgets),
          key == null ? null : new UniqueKey(key, scope), null);
    }
  }

  // ---- engine calls --------------------------------------------------------------------------

  private Enqueued enqueue(U spec) {
    return h.turn((engine, nowMs) ->
        engine.enqueueAll(List.of(spec.toNewJob(ids.next(nowMs))), false, nowMs)).get(0);
  }

  private List<Enqueued> bulk(U... specs) {
    return h.turn((engine, nowMs) -> {
      List<NewJob> requests = new ArrayList<>();
      for (U spec : specs) {
        requests.add(spec.toNewJob(ids.next(nowMs)));
      }
      return engine.enqueueAll(requests, true, nowMs);
    });
  }

  /** Enqueues and asserts that a new job was created; returns its id. */
  private JobId created(U spec) {
    Enqueued answer = enqueue(spec);
    assertThat(answer.duplicate()).as("duplicate flag of %s", answer.job().id()).isFalse();
    assertThat(answer.folded()).isFalse();
    assertThat(answer.created()).isTrue();
    assertThat(h.get(answer.job().id()).id()).isEqualTo(answer.job().id());
    return answer.job().id();
  }

  /** Enqueues and asserts a duplicate of {@code holder} in {@code status}; nothing is written. */
  private JobSnapshot duplicateOf(U spec, JobId holder, JobStatus status) {
    int jobsBefore = h.engine().jobCount();
    Enqueued answer = enqueue(spec);
    assertDuplicate(answer, holder, status);
    assertThat(h.lastTurn()).as("a duplicate writes nothing").isEmpty();
    assertThat(h.engine().jobCount()).as("a duplicate creates nothing").isEqualTo(jobsBefore);
    return answer.job();
  }

  private static void assertDuplicate(Enqueued answer, JobId holder, JobStatus status) {
    assertThat(answer.duplicate()).as("duplicate flag (answer %s)", answer.job().id()).isTrue();
    assertThat(answer.folded()).isFalse();
    assertThat(answer.created()).isFalse();
    assertThat(answer.job().id()).isEqualTo(holder);
    assertThat(answer.job().status()).isEqualTo(status);
  }

  private void delete(JobId id) {
    h.turn((engine, nowMs) -> {
      engine.delete(id, nowMs);
      return null;
    });
  }

  /** Dispatches on a fresh worker for {@code id}'s queue and asserts it gets exactly that job. */
  private EngineHarness.Worker take(JobId id) {
    EngineHarness.Worker worker = h.openWorker(h.get(id).queue(), 1);
    assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(id);
    assertThat(h.get(id).status()).isEqualTo(JobStatus.IN_FLIGHT);
    return worker;
  }

  private static List<Mutation> pointers(List<Mutation> mutations) {
    return mutations.stream()
        .filter(m -> m instanceof PutPointer || m instanceof DeletePointer)
        .toList();
  }

  private static PutPointer put(String key, JobId id) {
    return new PutPointer(CLAIM, key, id);
  }

  private static DeletePointer del(String key) {
    return new DeletePointer(CLAIM, key);
  }

  // ---- enqueue and duplicates while queued ---------------------------------------------------

  @Nested
  class WhileQueued {
    @ParameterizedTest
    @EnumSource(Scope.class)
    void aReadyHolderIsDuplicatedAndTheNewJobWritesItsClaim(Scope scope) {
      Enqueued first = enqueue(u("k", scope).priority(7));
      assertThat(first.created()).isTrue();
      assertThat(first.duplicate()).isFalse();
      assertThat(first.job().status()).isEqualTo(JobStatus.READY);
      assertThat(first.job().unique()).isEqualTo(new UniqueKey("k", scope));
      assertThat(pointers(h.lastTurn())).containsExactly(put("k", first.job().id()));

      JobSnapshot dup = duplicateOf(u("k", scope).priority(9).queue("other").type("other"),
          first.job().id(), JobStatus.READY);

      // The holder's data, not the request's.
      assertThat(dup.priority()).isEqualTo(7);
      assertThat(dup.queue()).isEqualTo("a");
      assertThat(dup.type()).isEqualTo("unique_job");
      assertThat(dup.unique()).isEqualTo(new UniqueKey("k", scope));
      assertThat(h.engine().jobCount()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Scope.class)
    void aScheduledHolderIsDuplicated(Scope scope) {
      JobId holder = created(u("k", scope).readyAtMs(h.nowMs() + 60_000));
      assertThat(h.get(holder).status()).isEqualTo(JobStatus.SCHEDULED);

      duplicateOf(u("k", scope), holder, JobStatus.SCHEDULED);
    }

    @ParameterizedTest
    @EnumSource(Scope.class)
    void aDuplicateAnswersTheHoldersLiveStatusAfterPromotion(Scope scope) {
      JobId holder = created(u("k", scope).readyAtMs(h.nowMs() + 1_000));
      duplicateOf(u("k", scope), holder, JobStatus.SCHEDULED);

      h.advanceMs(1_000);
      h.runDue();

      duplicateOf(u("k", scope), holder, JobStatus.READY);
    }

    @Test
    void keysAreGlobalAcrossQueuesAndTypesAndDistinctKeysDoNotCollide() {
      JobId first = created(u("k", Scope.QUEUED).queue("a").type("t1"));
      JobId other = created(u("k2", Scope.QUEUED).queue("a").type("t1"));

      duplicateOf(u("k", Scope.QUEUED).queue("b").type("t2"), first, JobStatus.READY);
      duplicateOf(u("k2", Scope.QUEUED).queue("c"), other, JobStatus.READY);
      assertThat(first).isNotEqualTo(other);
    }

    @Test
    void aJobWithoutAKeyIsNeverADuplicate() {
      JobId a = created(u(null, null));
      JobId b = created(u(null, null));

      assertThat(a).isNotEqualTo(b);
      assertThat(pointers(h.mutations())).isEmpty();
      assertThat(h.get(a).unique()).isNull();
    }
  }

  // ---- dispatch ------------------------------------------------------------------------------

  @Nested
  class AfterDispatch {
    @Test
    void queuedHolderReleasesOnDispatchAndANewJobTakesTheClaim() {
      JobId holder = created(u("k", Scope.QUEUED));
      take(holder);
      assertThat(pointers(h.lastTurn())).as("the dispatch release is not written").isEmpty();

      Enqueued answer = enqueue(u("k", Scope.QUEUED).queue("b"));

      assertThat(answer.created()).isTrue();
      JobId newer = answer.job().id();
      assertThat(newer).isNotEqualTo(holder);
      assertThat(pointers(h.lastTurn())).containsExactly(put("k", newer));
      duplicateOf(u("k", Scope.QUEUED), newer, JobStatus.READY);
      assertThat(h.get(holder).status()).isEqualTo(JobStatus.IN_FLIGHT);
    }

    @ParameterizedTest
    @EnumSource(value = Scope.class, names = {"ACTIVE", "EXISTS"})
    void activeAndExistsHoldersAreDuplicatedWhileInFlight(Scope scope) {
      JobId holder = created(u("k", scope));
      take(holder);
      long dequeuedAtMs = h.nowMs();
      h.advanceMs(5);

      JobSnapshot dup = duplicateOf(u("k", scope).queue("b"), holder, JobStatus.IN_FLIGHT);

      assertThat(dup.dequeuedAtMs()).isEqualTo(dequeuedAtMs);
    }
  }

  // ---- completion ----------------------------------------------------------------------------

  @Nested
  class AfterCompletion {
    @Test
    void existsHolderCompletedWithRetentionIsStillDuplicated() {
      JobId holder = created(u("k", Scope.EXISTS).retention(60_000L, null));
      take(holder);
      h.ack(holder);
      assertThat(pointers(h.lastTurn())).as("exists keeps its claim on completion").isEmpty();

      JobSnapshot dup = duplicateOf(u("k", Scope.EXISTS).queue("b"), holder,
          JobStatus.COMPLETED);

      assertThat(dup.completedAtMs()).isEqualTo(h.nowMs());
      assertThat(dup.purgeAtMs()).isEqualTo(h.nowMs() + 60_000);
    }

    @Test
    void activeHolderCompletedWithRetentionReleasesTheClaim() {
      JobId holder = created(u("k", Scope.ACTIVE).retention(60_000L, null));
      take(holder);
      h.ack(holder);
      assertThat(pointers(h.lastTurn())).containsExactly(del("k"));
      assertThat(h.get(holder).status()).isEqualTo(JobStatus.COMPLETED);

      JobId newer = created(u("k", Scope.ACTIVE).queue("b"));

      assertThat(newer).isNotEqualTo(holder);
      assertThat(pointers(h.lastTurn())).containsExactly(put("k", newer));
      duplicateOf(u("k", Scope.ACTIVE), newer, JobStatus.READY);
    }

    @Test
    void queuedHolderCompletedWithRetentionLeavesTheKeyFree() {
      JobId holder = created(u("k", Scope.QUEUED).retention(60_000L, null));
      take(holder);
      h.ack(holder);
      // Released at dispatch (in memory); completion has no claim left to drop.
      assertThat(pointers(h.lastTurn())).isEmpty();

      JobId newer = created(u("k", Scope.QUEUED).queue("b"));

      assertThat(newer).isNotEqualTo(holder);
      duplicateOf(u("k", Scope.QUEUED), newer, JobStatus.READY);
    }

    @ParameterizedTest
    @EnumSource(Scope.class)
    void zeroRetentionCompletionFreesTheKeyForEveryScope(Scope scope) {
      JobId holder = created(u("k", scope));
      take(holder);
      h.ack(holder);
      assertThat(h.lastTurn()).contains(new Mutation.DeleteJob(holder, 0));
      // A queued holder let go at dispatch; the others drop their written claim now.
      assertThat(pointers(h.lastTurn()))
          .isEqualTo(scope == Scope.QUEUED ? List.of() : List.of(del("k")));

      JobId newer = created(u("k", scope).queue("b"));

      assertThat(newer).isNotEqualTo(holder);
      assertThat(pointers(h.lastTurn())).containsExactly(put("k", newer));
      assertThat(h.engine().jobCount()).isEqualTo(1);
    }
  }

  // ---- death ---------------------------------------------------------------------------------

  @Nested
  class AfterDeath {
    @Test
    void existsHolderKilledWithRetentionIsStillDuplicated() {
      JobId holder = created(u("k", Scope.EXISTS));
      take(holder);
      assertThat(h.fail(holder, killingFailure()).status()).isEqualTo(JobStatus.DEAD);
      assertThat(pointers(h.lastTurn())).isEmpty();

      duplicateOf(u("k", Scope.EXISTS), holder, JobStatus.DEAD);
    }

    @ParameterizedTest
    @EnumSource(value = Scope.class, names = {"QUEUED", "ACTIVE"})
    void queuedAndActiveHoldersKilledWithRetentionFreeTheKey(Scope scope) {
      JobId holder = created(u("k", scope));
      take(holder);
      h.fail(holder, killingFailure());
      assertThat(h.get(holder).status()).isEqualTo(JobStatus.DEAD);
      assertThat(pointers(h.lastTurn()))
          .isEqualTo(scope == Scope.ACTIVE ? List.of(del("k")) : List.of());

      JobId newer = created(u("k", scope).queue("b"));

      assertThat(newer).isNotEqualTo(holder);
    }

    @ParameterizedTest
    @EnumSource(Scope.class)
    void retryLimitExhaustedWithZeroDeadRetentionFreesTheKey(Scope scope) {
      JobId holder = created(u("k", scope).retryLimit(0).retention(null, 0L));
      take(holder);
      assertThat(h.fail(holder).status()).isEqualTo(JobStatus.DEAD);
      assertThat(h.lastTurn()).contains(new Mutation.DeleteJob(holder, 1));

      JobId newer = created(u("k", scope).queue("b"));

      assertThat(newer).isNotEqualTo(holder);
      assertThat(h.engine().jobCount()).isEqualTo(1);
    }
  }

  // ---- deletion and purge --------------------------------------------------------------------

  @Nested
  class DeleteAndPurge {
    @ParameterizedTest
    @EnumSource(Scope.class)
    void deletingAReadyHolderFreesTheKey(Scope scope) {
      JobId holder = created(u("k", scope));

      delete(holder);

      assertThat(pointers(h.lastTurn())).containsExactly(del("k"));
      JobId newer = created(u("k", scope));
      assertThat(newer).isNotEqualTo(holder);
      duplicateOf(u("k", scope), newer, JobStatus.READY);
    }

    @ParameterizedTest
    @EnumSource(value = Scope.class, names = {"ACTIVE", "EXISTS"})
    void deletingAnInFlightHolderFreesTheKey(Scope scope) {
      JobId holder = created(u("k", scope));
      take(holder);

      delete(holder);

      assertThat(pointers(h.lastTurn())).containsExactly(del("k"));
      assertThat(created(u("k", scope).queue("b"))).isNotEqualTo(holder);
    }

    @Test
    void deletingACompletedExistsHolderFreesTheKey() {
      JobId holder = created(u("k", Scope.EXISTS).retention(60_000L, null));
      take(holder);
      h.ack(holder);

      delete(holder);

      assertThat(pointers(h.lastTurn())).containsExactly(del("k"));
      assertThat(created(u("k", Scope.EXISTS).queue("b"))).isNotEqualTo(holder);
    }

    @Test
    void deletingAnOlderJobDoesNotDropTheNewerHoldersClaim() {
      JobId older = created(u("k", Scope.QUEUED));
      take(older);
      JobId newer = created(u("k", Scope.QUEUED).queue("b"));

      delete(older);

      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", Scope.QUEUED), newer, JobStatus.READY);
    }

    @Test
    void existsHolderIsNoDuplicateOncePurgeAtPassesEvenBeforeTheReaper() {
      JobId holder = created(u("k", Scope.EXISTS).retention(1_000L, null));
      take(holder);
      h.ack(holder);
      h.advanceMs(999);
      duplicateOf(u("k", Scope.EXISTS), holder, JobStatus.COMPLETED);

      h.advanceMs(1);
      JobId newer = created(u("k", Scope.EXISTS).queue("b"));

      assertThat(newer).isNotEqualTo(holder);
      assertThat(pointers(h.lastTurn())).containsExactly(put("k", newer));
      // The reaper later removes the old holder without touching the newer claim.
      h.advanceMs(EngineConfig.DEFAULT_REAPER_INTERVAL_MS);
      h.runDue();
      assertThat(h.lastTurn()).contains(new Mutation.DeleteJob(holder, 0));
      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", Scope.EXISTS), newer, JobStatus.READY);
    }

    @Test
    void reapingACompletedExistsHolderDeletesItsClaim() {
      JobId holder = created(u("k", Scope.EXISTS).retention(1_000L, null));
      take(holder);
      h.ack(holder);
      h.advanceMs(1_000);

      h.runDue();

      assertThat(h.lastTurn()).contains(new Mutation.DeleteJob(holder, 0));
      assertThat(pointers(h.lastTurn())).containsExactly(del("k"));
      assertThat(created(u("k", Scope.QUEUED))).isNotEqualTo(holder);
    }

    @Test
    void reapingADeadExistsHolderDeletesItsClaim() {
      JobId holder = created(u("k", Scope.EXISTS).retention(null, 2_000L));
      take(holder);
      h.fail(holder, killingFailure());
      h.advanceMs(2_000);

      h.runDue();

      assertThat(pointers(h.lastTurn())).containsExactly(del("k"));
      assertThat(created(u("k", Scope.EXISTS))).isNotEqualTo(holder);
    }
  }

  // ---- failure and requeue -------------------------------------------------------------------

  @Nested
  class RetryAndRequeue {
    @Test
    void aRetriedQueuedHolderRetakesTheFreeClaim() {
      JobId holder = created(u("k", Scope.QUEUED));
      take(holder);

      JobSnapshot failed = h.fail(holder, failureRetryingAt(h.nowMs() + 10_000));

      assertThat(failed.status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(pointers(h.lastTurn())).containsExactly(put("k", holder));
      duplicateOf(u("k", Scope.QUEUED), holder, JobStatus.SCHEDULED);
    }

    @Test
    void aRetriedQueuedHolderDoesNotRetakeAClaimANewerJobHolds() {
      JobId older = created(u("k", Scope.QUEUED));
      take(older);
      JobId newer = created(u("k", Scope.QUEUED).queue("b"));

      h.fail(older, failureRetryingAt(h.nowMs() + 10_000));

      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", Scope.QUEUED), newer, JobStatus.READY);
      // Once the newer holder is gone the key is free: the scheduled older job does not hold it.
      delete(newer);
      assertThat(pointers(h.lastTurn())).containsExactly(del("k"));
      JobId third = created(u("k", Scope.QUEUED).queue("b"));
      assertThat(third).isNotIn(older, newer);
    }

    @ParameterizedTest
    @EnumSource(value = Scope.class, names = {"ACTIVE", "EXISTS"})
    void activeAndExistsHoldersKeepTheClaimThroughARetry(Scope scope) {
      JobId holder = created(u("k", scope));
      take(holder);

      h.fail(holder);

      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", scope), holder, JobStatus.SCHEDULED);
    }

    @Test
    void aQueuedHolderRequeuedByDisconnectRetakesTheFreeClaim() {
      JobId holder = created(u("k", Scope.QUEUED));
      EngineHarness.Worker worker = take(holder);

      h.close(worker);

      assertThat(h.get(holder).status()).isEqualTo(JobStatus.READY);
      assertThat(pointers(h.lastTurn())).containsExactly(put("k", holder));
      duplicateOf(u("k", Scope.QUEUED), holder, JobStatus.READY);
    }

    @Test
    void aQueuedHolderRequeuedByDisconnectDoesNotRetakeAClaimANewerJobHolds() {
      JobId older = created(u("k", Scope.QUEUED));
      EngineHarness.Worker worker = take(older);
      JobId newer = created(u("k", Scope.QUEUED).queue("b"));

      h.close(worker);

      assertThat(h.get(older).status()).isEqualTo(JobStatus.READY);
      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", Scope.QUEUED), newer, JobStatus.READY);
    }

    @ParameterizedTest
    @EnumSource(value = Scope.class, names = {"ACTIVE", "EXISTS"})
    void activeAndExistsHoldersKeepTheClaimThroughARequeue(Scope scope) {
      JobId holder = created(u("k", scope));
      EngineHarness.Worker worker = take(holder);

      h.close(worker);

      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", scope), holder, JobStatus.READY);
    }
  }

  // ---- mixed scopes --------------------------------------------------------------------------

  @Nested
  class MixedScopes {
    @Test
    void completedExistsHolderIsDuplicatedOnlyByAnExistsNewcomer() {
      JobId holder = created(u("k", Scope.EXISTS).retention(60_000L, null));
      take(holder);
      h.ack(holder);

      duplicateOf(u("k", Scope.EXISTS), holder, JobStatus.COMPLETED);
      JobId newer = created(u("k", Scope.QUEUED).queue("b"));

      assertThat(newer).isNotEqualTo(holder);
      assertThat(pointers(h.lastTurn())).containsExactly(put("k", newer));
      // The newer (queued) job holds the key now; even an exists newcomer duplicates it.
      duplicateOf(u("k", Scope.EXISTS), newer, JobStatus.READY);
    }

    @Test
    void completedExistsHolderIsNotDuplicatedByAnActiveNewcomer() {
      JobId holder = created(u("k", Scope.EXISTS).retention(60_000L, null));
      take(holder);
      h.ack(holder);

      assertThat(created(u("k", Scope.ACTIVE))).isNotEqualTo(holder);
    }

    @Test
    void inFlightActiveHolderIsDuplicatedByExistsButNotByQueued() {
      JobId holder = created(u("k", Scope.ACTIVE));
      take(holder);

      duplicateOf(u("k", Scope.EXISTS), holder, JobStatus.IN_FLIGHT);
      JobId newer = created(u("k", Scope.QUEUED).queue("b"));

      assertThat(newer).isNotEqualTo(holder);
      assertThat(pointers(h.lastTurn())).containsExactly(put("k", newer));
      // The old holder finishing must not drop the claim the newer job took.
      h.ack(holder);
      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", Scope.ACTIVE), newer, JobStatus.READY);
    }

    @Test
    void readyQueuedHolderIsDuplicatedByEveryScope() {
      JobId holder = created(u("k", Scope.QUEUED));

      for (Scope scope : Scope.values()) {
        duplicateOf(u("k", scope), holder, JobStatus.READY);
      }
    }

    @Test
    void inFlightQueuedHolderHasLetGoSoEvenAnExistsNewcomerIsNew() {
      JobId holder = created(u("k", Scope.QUEUED));
      take(holder);

      JobId newer = created(u("k", Scope.EXISTS).queue("b"));

      assertThat(newer).isNotEqualTo(holder);
      // Now held with exists: the first job's retry does not take it back.
      h.fail(holder, failureRetryingAt(h.nowMs() + 10_000));
      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", Scope.QUEUED), newer, JobStatus.READY);
    }
  }

  // ---- bulk ----------------------------------------------------------------------------------

  @Nested
  class Bulk {
    @Test
    void laterJobsWithAnEarlierJobsKeyAreItsDuplicates() {
      List<Enqueued> answers = bulk(
          u("k1", Scope.QUEUED).priority(1),
          u("k2", Scope.ACTIVE),
          u("k1", Scope.EXISTS).priority(2),
          u(null, null),
          u("k1", Scope.QUEUED).queue("b"),
          u("k2", Scope.QUEUED));

      assertThat(answers).hasSize(6);
      JobId first = answers.get(0).job().id();
      JobId second = answers.get(1).job().id();
      assertThat(answers.get(0).created()).isTrue();
      assertThat(answers.get(1).created()).isTrue();
      assertThat(answers.get(3).created()).isTrue();
      assertDuplicate(answers.get(2), first, JobStatus.READY);
      assertDuplicate(answers.get(4), first, JobStatus.READY);
      assertDuplicate(answers.get(5), second, JobStatus.READY);
      assertThat(answers.get(2).job().priority()).isEqualTo(1);
      assertThat(answers.get(4).job().queue()).isEqualTo("a");
      assertThat(h.engine().jobCount()).isEqualTo(3);
      assertThat(h.mutations(Mutation.PutJob.class)).hasSize(3);
      assertThat(pointers(h.lastTurn())).containsExactly(put("k1", first), put("k2", second));
    }

    @Test
    void aBulkOfOnlyDuplicatesCreatesAndWritesNothing() {
      JobId holder = created(u("k", Scope.ACTIVE).readyAtMs(h.nowMs() + 5_000));

      List<Enqueued> answers = bulk(u("k", Scope.ACTIVE), u("k", Scope.QUEUED));

      assertDuplicate(answers.get(0), holder, JobStatus.SCHEDULED);
      assertDuplicate(answers.get(1), holder, JobStatus.SCHEDULED);
      assertThat(h.lastTurn()).isEmpty();
      assertThat(h.engine().jobCount()).isEqualTo(1);
    }

    @Test
    void aBulkJobCanReplaceAHolderItsScopeDoesNotCoverAndLaterOnesDuplicateIt() {
      JobId holder = created(u("k", Scope.QUEUED));
      take(holder);

      List<Enqueued> answers = bulk(u("k", Scope.QUEUED).queue("b"), u("k", Scope.ACTIVE));

      JobId newer = answers.get(0).job().id();
      assertThat(answers.get(0).created()).isTrue();
      assertThat(newer).isNotEqualTo(holder);
      assertDuplicate(answers.get(1), newer, JobStatus.READY);
      assertThat(pointers(h.lastTurn())).containsExactly(put("k", newer));
    }

    @Test
    void aBindingErrorOnALaterDuplicateRejectsTheWholeBulk() {
      int mutationsBefore = h.mutations().size();

      assertThatThrownBy(() -> bulk(
              u("k", Scope.QUEUED),
              u("k", Scope.QUEUED).budget(new BindingRequest("ghost", null, null))))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("jobs[1]: budget 'ghost' does not exist and no create_with policy was"
              + " supplied to create it with");

      assertThat(h.engine().jobCount()).isZero();
      assertThat(h.mutations()).hasSize(mutationsBefore);
      assertThat(created(u("k", Scope.QUEUED))).isNotNull();
    }
  }

  // ---- budgets on duplicates (BUDGETS.md §4.2) -----------------------------------------------

  @Nested
  class BudgetsOnDuplicates {
    @Test
    void aDuplicatesCreateWithBudgetIsCreatedAndTheHolderKeepsItsBindings() {
      JobId holder = created(u("k", Scope.QUEUED));

      Enqueued answer = enqueue(u("k", Scope.QUEUED)
          .budget(new BindingRequest("fresh", 2L, whileInFlight(5))));

      assertDuplicate(answer, holder, JobStatus.READY);
      assertThat(answer.job().budgets()).isEmpty();
      assertThat(h.budgets().list()).extracting(BudgetView::key).containsExactly("fresh");
      assertThat(h.lastTurn()).hasSize(1).allMatch(m -> m instanceof Mutation.PutBudget);
      assertThat(h.get(holder).budgets()).isEmpty();
    }

    @Test
    void aDuplicateWithAnUnknownBudgetIsRejected() {
      created(u("k", Scope.QUEUED));

      assertThatThrownBy(() -> enqueue(u("k", Scope.QUEUED)
              .budget(new BindingRequest("ghost", null, null))))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("budget 'ghost' does not exist and no create_with policy was supplied to"
              + " create it with");
      assertThat(h.lastTurn()).isEmpty();
    }
  }

  // ---- restart -------------------------------------------------------------------------------

  /** What a store holds after the committed mutations: job records and claim pointers. */
  private record Stored(List<JobSnapshot> jobs, Map<String, JobId> claims) {}

  private Stored stored() {
    Map<JobId, JobSnapshot> jobs = new LinkedHashMap<>();
    Map<String, JobId> claims = new LinkedHashMap<>();
    for (Mutation m : h.mutations()) {
      if (m instanceof Mutation.PutJob p) {
        jobs.put(p.job().id(), p.job());
      } else if (m instanceof Mutation.DeleteJob d) {
        jobs.remove(d.id());
      } else if (m instanceof PutPointer p && p.kind() == CLAIM) {
        claims.put(p.key(), p.job());
      } else if (m instanceof DeletePointer d && d.kind() == CLAIM) {
        claims.remove(d.key());
      }
    }
    return new Stored(List.copyOf(jobs.values()), claims);
  }

  /** Restarts on what is stored, loading the claims after the jobs as start-up does. */
  private Stored restart() {
    Stored stored = stored();
    h = h.restart(stored.jobs());
    h.turn((engine, nowMs) -> {
      stored.claims().forEach(engine::recoverClaim);
      return null;
    });
    return stored;
  }

  @Nested
  class Restart {
    @Test
    void claimsOfQueuedJobsOfEveryScopeSurvive() {
      JobId q = created(u("q", Scope.QUEUED));
      JobId a = created(u("a", Scope.ACTIVE).readyAtMs(h.nowMs() + 60_000));
      JobId e = created(u("e", Scope.EXISTS));

      Stored stored = restart();

      assertThat(stored.claims()).containsExactlyInAnyOrderEntriesOf(
          Map.of("q", q, "a", a, "e", e));
      assertThat(pointers(h.lastTurn())).as("no claim dropped").isEmpty();
      duplicateOf(u("q", Scope.QUEUED), q, JobStatus.READY);
      duplicateOf(u("a", Scope.ACTIVE), a, JobStatus.SCHEDULED);
      duplicateOf(u("e", Scope.EXISTS), e, JobStatus.READY);
    }

    @Test
    void aQueuedJobInFlightAtTheCrashComesBackHoldingItsClaim() {
      JobId holder = created(u("k", Scope.QUEUED));
      take(holder);
      created(u("other", Scope.QUEUED).queue("b"));

      restart();

      assertThat(h.get(holder).status()).isEqualTo(JobStatus.READY);
      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", Scope.QUEUED), holder, JobStatus.READY);
    }

    @Test
    void aQueuedJobInFlightAtTheCrashDoesNotRetakeANewerHoldersClaim() {
      JobId older = created(u("k", Scope.QUEUED));
      take(older);
      JobId newer = created(u("k", Scope.QUEUED).queue("b"));

      Stored stored = restart();

      assertThat(stored.claims()).containsExactly(Map.entry("k", newer));
      assertThat(h.get(older).status()).isEqualTo(JobStatus.READY);
      duplicateOf(u("k", Scope.QUEUED), newer, JobStatus.READY);
    }

    @Test
    void aStoredClaimOfACompletedQueuedJobIsDroppedAndDeleted() {
      JobId holder = created(u("k", Scope.QUEUED).retention(60_000L, null));
      take(holder);
      h.ack(holder);

      Stored stored = restart();

      // The dispatch release was never written, so the store still names the completed job.
      assertThat(stored.claims()).containsExactly(Map.entry("k", holder));
      assertThat(pointers(h.lastTurn())).containsExactly(del("k"));
      assertThat(h.get(holder).status()).isEqualTo(JobStatus.COMPLETED);
      assertThat(created(u("k", Scope.QUEUED))).isNotEqualTo(holder);
    }

    @Test
    void aCompletedExistsHoldersClaimSurvives() {
      JobId holder = created(u("k", Scope.EXISTS).retention(60_000L, null));
      take(holder);
      h.ack(holder);

      restart();

      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", Scope.EXISTS), holder, JobStatus.COMPLETED);
    }

    @Test
    void aCompletedActiveHoldersKeyIsFree() {
      JobId holder = created(u("k", Scope.ACTIVE).retention(60_000L, null));
      take(holder);
      h.ack(holder);

      Stored stored = restart();

      assertThat(stored.claims()).isEmpty();
      assertThat(created(u("k", Scope.ACTIVE))).isNotEqualTo(holder);
    }

    @Test
    void anInFlightActiveJobComesBackReadyHoldingItsClaim() {
      JobId holder = created(u("k", Scope.ACTIVE));
      take(holder);

      restart();

      assertThat(pointers(h.lastTurn())).isEmpty();
      duplicateOf(u("k", Scope.ACTIVE), holder, JobStatus.READY);
    }

    @Test
    void aClaimOnAMissingJobOrAJobWithAnotherKeyIsDropped() {
      JobId job = created(u("k", Scope.EXISTS));
      Stored stored = stored();
      h = h.restart(stored.jobs());
      JobId missing = ids.next(h.nowMs());

      h.turn((engine, nowMs) -> {
        engine.recoverClaim("ghost", missing);
        engine.recoverClaim("wrong", job);
        engine.recoverClaim("k", job);
        return null;
      });

      assertThat(pointers(h.lastTurn())).containsExactlyInAnyOrder(del("ghost"), del("wrong"));
      duplicateOf(u("k", Scope.EXISTS), job, JobStatus.READY);
      assertThat(created(u("wrong", Scope.EXISTS))).isNotEqualTo(job);
      assertThat(created(u("ghost", Scope.EXISTS))).isNotEqualTo(missing);
    }

    @Test
    void aClaimStoredForARetainedDeadQueuedJobIsDropped() {
      // Dead with retention after a failure from in flight: the release at dispatch was in
      // memory only, so the pointer to the dead job is still stored.
      JobId holder = created(u("k", Scope.QUEUED));
      take(holder);
      h.fail(holder, killingFailure());

      restart();

      assertThat(pointers(h.lastTurn())).containsExactly(del("k"));
      assertThat(h.get(holder).status()).isEqualTo(JobStatus.DEAD);
      assertThat(created(u("k", Scope.QUEUED))).isNotEqualTo(holder);
    }
  }
}

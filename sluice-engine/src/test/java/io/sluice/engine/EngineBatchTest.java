package io.sluice.engine;

import static io.sluice.engine.EngineHarness.whileInFlight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.Binding;
import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.Enqueued;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.Mutation;
import io.sluice.engine.store.Mutation.DeletePointer;
import io.sluice.engine.store.Mutation.PutPayload;
import io.sluice.engine.store.Mutation.PutPointer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Batched jobs in the engine (API.md §4.6, §8.2, §8.3; BUDGETS.md §4.2 "duplicates/folds"): which
 * enqueues open, fold into or seal a key's open batch, what a fold changes and keeps, the payload
 * and pointer mutations written, all-or-nothing bulk requests, and restart (BatchPlan,
 * OpenBatches, Engine.enqueueAll, Engine.recoverOpenBatch).
 *
 * <p>The jq evaluator lives in sluice-api, so these tests plug in {@link FakeExpressions}: payloads
 * are JSON arrays of integers, {@code when} is {@code always}, {@code never} or {@code max:N}
 * (fold while the combined item count stays at most N) and {@code fold} is {@code concat}
 * ($existing + $new), {@code reverse} ($new + $existing) or {@code concat-unless-666} (fails when
 * the incoming payload holds 666).
 */
class EngineBatchTest {
  private static final Mutation.Pointer OPEN = Mutation.Pointer.OPEN_BATCH;

  private final FakeExpressions fake = new FakeExpressions();
  private final JobIdGenerator ids = new JobIdGenerator();
  private EngineHarness h = EngineHarness.create(EngineConfig.defaults(), fake);

  // ---- the fake evaluator --------------------------------------------------------------------

  /** Deterministic stand-in for jq; records the config each call was given. */
  static final class FakeExpressions implements BatchExpressions {
    final List<BatchConfig> whenCalls = new ArrayList<>();
    final List<BatchConfig> foldCalls = new ArrayList<>();

    @Override
    public boolean shouldFold(BatchConfig batch, byte[] existing, byte[] incoming) {
      whenCalls.add(batch);
      String when = batch.when();
      if (when.equals("always")) {
        return true;
      }
      if (when.equals("never")) {
        return false;
      }
      if (when.startsWith("max:")) {
        return items(existing).size() + items(incoming).size()
            <= Integer.parseInt(when.substring(4));
      }
      throw new IllegalArgumentException("fake: unknown when " + when);
    }

    @Override
    public byte[] fold(BatchConfig batch, byte[] existing, byte[] incoming) {
      foldCalls.add(batch);
      List<Integer> result = new ArrayList<>();
      switch (batch.fold()) {
        case "concat" -> {
          result.addAll(items(existing));
          result.addAll(items(incoming));
        }
        case "reverse" -> {
          result.addAll(items(incoming));
          result.addAll(items(existing));
        }
        case "concat-unless-666" -> {
          if (items(incoming).contains(666)) {
            throw new SluiceException.Unprocessable("batch fold failed: poison 666");
          }
          result.addAll(items(existing));
          result.addAll(items(incoming));
        }
        default -> throw new IllegalArgumentException("fake: unknown fold " + batch.fold());
      }
      return json(result);
    }

    void reset() {
      whenCalls.clear();
      foldCalls.clear();
    }
  }

  static List<Integer> items(byte[] payload) {
    String text = new String(payload, StandardCharsets.UTF_8).trim();
    if (!text.startsWith("[") || !text.endsWith("]")) {
      throw new IllegalArgumentException("fake: payload is not an array: " + text);
    }
    String inner = text.substring(1, text.length() - 1).trim();
    if (inner.isEmpty()) {
      return List.of();
    }
    return Arrays.stream(inner.split(",")).map(s -> Integer.parseInt(s.trim())).toList();
  }

  static byte[] json(List<Integer> items) {
    return items.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"))
        .getBytes(StandardCharsets.UTF_8);
  }

  static String arr(int... items) {
    return Arrays.stream(items).mapToObj(String::valueOf).collect(Collectors.joining(",", "[", "]"));
  }

  // ---- request building ----------------------------------------------------------------------

  /** A batched request for key {@code key} on queue "q", folding while at most 3 items. */
  private static B b(String key, int... items) {
    return new B(key, items);
  }

  private static final class B {
    private String key;
    private String when = "max:3";
    private String fold = "concat";
    private String queue = "q";
    private String type = "batch_job";
    private int priority = NewJob.DEFAULT_PRIORITY;
    private Long readyAtMs;
    private Integer retryLimit;
    private final int[] items;
    private final List<BindingRequest> budgets = new ArrayList<>();

    private B(String key, int[] items) {
      this.key = key;
      this.items = items;
    }

    B when(String when) {
      this.when = when;
      return this;
    }

    B fold(String fold) {
      this.fold = fold;
      return this;
    }

    B queue(String queue) {
      this.queue = queue;
      return this;
    }

    B type(String type) {
      this.type = type;
      return this;
    }

    B priority(int priority) {
      this.priority = priority;
      return this;
    }

    B readyAtMs(long readyAtMs) {
      this.readyAtMs = readyAtMs;
      return this;
    }

    B retryLimit(int retryLimit) {
      this.retryLimit = retryLimit;
      return this;
    }

    B budget(String budgetKey) {
      budgets.add(new BindingRequest(budgetKey, null, null));
      return this;
    }

    B budget(String budgetKey, PolicySpec createWith) {
      budgets.add(new BindingRequest(budgetKey, null, createWith));
      return this;
    }

    /** No batch config at all: an ordinary job. */
    B unbatched() {
      this.key = null;
      return this;
    }

    BatchConfig config() {
      return key == null ? null : new BatchConfig(key, when, fold);
    }

    NewJob toNewJob(JobId id) {
      return new NewJob(id, type, queue, priority, readyAtMs, retryLimit, null, null,
          arr(items).getBytes(StandardCharsets.UTF_8), List.copyOf(budgets), null, config());
    }
  }

  private Enqueued one(B request) {
    return h.enqueueAll(List.of(request.toNewJob(ids.next(h.nowMs()))), false).get(0);
  }

  private List<Enqueued> bulk(B... requests) {
    List<NewJob> jobs = new ArrayList<>();
    for (B request : requests) {
      jobs.add(request.toNewJob(ids.next(h.nowMs())));
    }
    return h.enqueueAll(jobs, true);
  }

  private JobId created(B request) {
    Enqueued answer = one(request);
    assertThat(answer.created()).as("created: %s", answer).isTrue();
    assertThat(answer.folded()).isFalse();
    assertThat(answer.duplicate()).isFalse();
    return answer.job().id();
  }

  private Enqueued foldedInto(B request, JobId target) {
    Enqueued answer = one(request);
    assertThat(answer.folded()).as("folded: %s", answer).isTrue();
    assertThat(answer.duplicate()).isFalse();
    assertThat(answer.created()).isFalse();
    assertThat(answer.job().id()).isEqualTo(target);
    return answer;
  }

  /** The payload the engine holds for {@code id} (open and folded jobs keep it in memory). */
  private String payload(JobId id) {
    byte[] payload = h.get(id).payload();
    assertThat(payload).as("payload of %s held in memory", id).isNotNull();
    return new String(payload, StandardCharsets.UTF_8);
  }

  /** Every payload a store would hold after the committed mutations. */
  private Map<JobId, String> storedPayloads() {
    Map<JobId, String> payloads = new LinkedHashMap<>();
    for (Mutation m : h.mutations()) {
      if (m instanceof PutPayload p) {
        payloads.put(p.id(), new String(p.payload(), StandardCharsets.UTF_8));
      } else if (m instanceof Mutation.DeleteJob d) {
        payloads.remove(d.id());
      }
    }
    return payloads;
  }

  /** The open-batch pointers a store would hold after the committed mutations. */
  private Map<String, JobId> storedPointers() {
    Map<String, JobId> pointers = new LinkedHashMap<>();
    for (Mutation m : h.mutations()) {
      if (m instanceof PutPointer p && p.kind() == OPEN) {
        pointers.put(p.key(), p.job());
      } else if (m instanceof DeletePointer d && d.kind() == OPEN) {
        pointers.remove(d.key());
      }
    }
    return pointers;
  }

  private static List<Mutation> pointerWrites(List<Mutation> turn) {
    return turn.stream()
        .filter(m -> (m instanceof PutPointer p && p.kind() == OPEN)
            || (m instanceof DeletePointer d && d.kind() == OPEN))
        .toList();
  }

  private static <M extends Mutation> List<M> of(List<Mutation> turn, Class<M> type) {
    return turn.stream().filter(type::isInstance).map(type::cast).toList();
  }

  private void delete(JobId id) {
    h.turn((engine, nowMs) -> {
      engine.delete(id, nowMs);
      return null;
    });
  }

  // ---- opening and folding -------------------------------------------------------------------

  @Nested
  class OpenAndFold {
    @Test
    void theFirstEnqueueOpensTheBatch() {
      Enqueued answer = one(b("k", 1));

      assertThat(answer.created()).isTrue();
      assertThat(answer.folded()).isFalse();
      assertThat(answer.duplicate()).isFalse();
      JobId id = answer.job().id();
      assertThat(answer.job().status()).isEqualTo(JobStatus.READY);
      assertThat(answer.job().batch()).isEqualTo(new BatchConfig("k", "max:3", "concat"));
      assertThat(pointerWrites(h.lastTurn())).containsExactly(new PutPointer(OPEN, "k", id));
      assertThat(fake.whenCalls).as("nothing to fold into").isEmpty();
      assertThat(payload(id)).isEqualTo("[1]");
      assertThat(storedPayloads()).containsEntry(id, "[1]");
    }

    @Test
    void aReadyEnqueueFoldsIntoTheOpenJob() {
      JobId open = created(b("k", 1));
      h.advanceMs(10);

      Enqueued answer = foldedInto(b("k", 2), open);

      assertThat(payload(open)).isEqualTo("[1,2]");
      assertThat(h.engine().jobCount()).isEqualTo(1);
      assertThat(answer.job().payload()).as("answers carry no payload").isNull();
      assertThat(h.lastTurn()).as("a fold writes the payload only").hasSize(1)
          .first().isInstanceOfSatisfying(PutPayload.class, put -> {
            assertThat(put.id()).isEqualTo(open);
            assertThat(new String(put.payload(), StandardCharsets.UTF_8)).isEqualTo("[1,2]");
          });
      assertThat(storedPayloads()).containsEntry(open, "[1,2]");
      assertThat(storedPointers()).containsExactly(Map.entry("k", open));
    }

    @Test
    void theFoldPutPayloadHoldsTheFoldedBytes() {
      JobId open = created(b("k", 1));
      one(b("k", 2, 3));

      List<PutPayload> puts = of(h.lastTurn(), PutPayload.class);
      assertThat(puts).hasSize(1);
      assertThat(puts.get(0).id()).isEqualTo(open);
      assertThat(new String(puts.get(0).payload(), StandardCharsets.UTF_8)).isEqualTo("[1,2,3]");
      assertThat(of(h.lastTurn(), Mutation.PutJob.class)).as("the job record is untouched")
          .isEmpty();
      assertThat(pointerWrites(h.lastTurn())).as("the pointer stays").isEmpty();
    }

    @Test
    void theFoldedJobKeepsItsIdQueuePriorityReadyAtBudgetsAndFields() {
      h.budget("b1", whileInFlight(10));
      JobId open = created(b("k", 1).queue("q1").type("t1").priority(5).retryLimit(2)
          .budget("b1"));
      JobSnapshot before = h.get(open);
      long openedAtMs = h.nowMs();
      h.advanceMs(1_000);

      Enqueued answer = foldedInto(b("k", 2).queue("q2").type("t2").priority(9).retryLimit(7)
          .budget("b2", whileInFlight(3)), open);

      JobSnapshot after = h.get(open);
      for (JobSnapshot job : List.of(answer.job(), after)) {
        assertThat(job.id()).isEqualTo(open);
        assertThat(job.queue()).isEqualTo("q1");
        assertThat(job.type()).isEqualTo("t1");
        assertThat(job.priority()).isEqualTo(5);
        assertThat(job.retryLimit()).isEqualTo(2);
        assertThat(job.readyAtMs()).isEqualTo(openedAtMs);
        assertThat(job.budgets()).containsExactly(new Binding("b1", 1));
        assertThat(job.status()).isEqualTo(JobStatus.READY);
        assertThat(job.attempts()).isZero();
        assertThat(job.batch()).isEqualTo(before.batch());
      }
      assertThat(h.engine().queueNames()).containsExactly("q1");
      // BUDGETS.md §4.2: bindings are resolved and create_with budgets created before folding.
      assertThat(h.budgets().list()).extracting(BudgetView::key).contains("b1", "b2");
      assertThat(h.parkedCount("b1")).isEqualTo(1);
    }

    @Test
    void theFoldedJobKeepsItsDispatchPositionAndIsDeliveredWithTheFoldedPayload() {
      JobId open = created(b("k", 1).priority(5));
      h.advanceMs(1);
      JobId other = created(b("x", 100).unbatched().priority(7));
      h.advanceMs(1);
      foldedInto(b("k", 2).priority(10), open);
      foldedInto(b("k", 3).priority(10), open);

      EngineHarness.Worker worker = h.openWorker("q", 0);
      List<JobSnapshot> delivered = h.dispatch();

      assertThat(delivered).extracting(JobSnapshot::id).containsExactly(open, other);
      assertThat(new String(delivered.get(0).payload(), StandardCharsets.UTF_8))
          .isEqualTo("[1,2,3]");
      assertThat(new String(delivered.get(1).payload(), StandardCharsets.UTF_8))
          .isEqualTo("[100]");
      assertThat(worker.received()).hasSize(2);
    }

    @Test
    void aFoldIntoAJobThatAlreadyHasABatchedJobBehindItKeepsOrder() {
      JobId first = created(b("k", 1).when("never"));
      JobId second = created(b("k", 2).when("always"));
      foldedInto(b("k", 3), second);

      h.openWorker("q", 0);
      List<JobSnapshot> delivered = h.dispatch();

      assertThat(delivered).extracting(JobSnapshot::id).containsExactly(first, second);
      assertThat(delivered).extracting(j -> new String(j.payload(), StandardCharsets.UTF_8))
          .containsExactly("[1]", "[2,3]");
    }

    @Test
    void theBatchKeyIsGlobalAcrossQueuesAndKeysAreIndependent() {
      JobId a = created(b("a", 1).queue("q1"));
      JobId bee = created(b("b", 10).queue("q1"));

      foldedInto(b("a", 2).queue("q2"), a);
      foldedInto(b("b", 20).queue("q3"), bee);

      assertThat(payload(a)).isEqualTo("[1,2]");
      assertThat(payload(bee)).isEqualTo("[10,20]");
      assertThat(h.engine().queueNames()).containsExactly("q1");
    }

    @Test
    void anUnbatchedEnqueueNeverFolds() {
      JobId open = created(b("k", 1));
      JobId plain = created(b("k", 2).unbatched());

      assertThat(plain).isNotEqualTo(open);
      assertThat(payload(open)).isEqualTo("[1]");
      assertThat(fake.whenCalls).isEmpty();
      assertThat(storedPointers()).containsExactly(Map.entry("k", open));
    }

    @Test
    void foldingWorksWithoutAPayloadCache() {
      EngineConfig d = EngineConfig.defaults();
      h = EngineHarness.create(new EngineConfig(d.defaultRetryLimit(), d.defaultBackoff(),
          d.defaultCompletedRetentionMs(), d.defaultDeadRetentionMs(), d.globalInFlightLimit(),
          d.reaperIntervalMs(), d.schedulerBatchSize(), 0), fake);
      JobId open = created(b("k", 1));
      foldedInto(b("k", 2), open);
      foldedInto(b("k", 3), open);

      assertThat(storedPayloads()).containsEntry(open, "[1,2,3]");
      h.openWorker("q", 0);
      List<JobSnapshot> delivered = h.dispatch();
      assertThat(delivered).hasSize(1);
      assertThat(new String(delivered.get(0).payload(), StandardCharsets.UTF_8))
          .isEqualTo("[1,2,3]");
    }
  }

  // ---- sealing and stale pointers ------------------------------------------------------------

  @Nested
  class Sealing {
    @Test
    void aFalsyWhenSealsAndTheNewJobBecomesTheOpenBatch() {
      JobId first = created(b("k", 1));
      foldedInto(b("k", 2), first);
      fake.reset();

      JobId second = created(b("k", 3, 4));

      assertThat(second).isNotEqualTo(first);
      assertThat(fake.whenCalls).as("when was evaluated against the open job").hasSize(1);
      assertThat(fake.foldCalls).isEmpty();
      assertThat(pointerWrites(h.lastTurn())).containsExactly(new PutPointer(OPEN, "k", second));
      assertThat(payload(first)).as("the sealed job is unchanged").isEqualTo("[1,2]");
      assertThat(h.get(first).status()).isEqualTo(JobStatus.READY);
      assertThat(payload(second)).isEqualTo("[3,4]");

      foldedInto(b("k", 5), second);
      assertThat(payload(second)).isEqualTo("[3,4,5]");
      assertThat(payload(first)).isEqualTo("[1,2]");
      assertThat(storedPointers()).containsExactly(Map.entry("k", second));
    }

    @Test
    void aSealedJobIsNeverFoldedIntoAgain() {
      JobId first = created(b("k", 1, 2, 3));
      JobId second = created(b("k", 4).when("never"));
      JobId third = created(b("k", 5).when("never"));

      assertThat(List.of(first, second, third)).doesNotHaveDuplicates();
      assertThat(payload(first)).isEqualTo("[1,2,3]");
      assertThat(payload(second)).isEqualTo("[4]");
      assertThat(storedPointers()).containsExactly(Map.entry("k", third));
    }

    @Test
    void aPointerToATakenJobIsDiscardedAndTheNewJobOpensTheBatch() {
      JobId open = created(b("k", 1));
      h.openWorker("q", 0);
      assertThat(h.dispatch()).extracting(JobSnapshot::id).containsExactly(open);
      fake.reset();

      JobId next = created(b("k", 2));

      assertThat(next).isNotEqualTo(open);
      assertThat(fake.whenCalls).as("an in-flight job is not a candidate").isEmpty();
      assertThat(pointerWrites(h.lastTurn())).containsExactly(new PutPointer(OPEN, "k", next));
      foldedInto(b("k", 3), next);
      assertThat(payload(next)).isEqualTo("[2,3]");
    }

    @Test
    void aPointerToACompletedJobIsDiscarded() {
      JobId open = created(b("k", 1));
      h.openWorker("q", 0);
      h.dispatch();
      h.ack(open);

      JobId next = created(b("k", 2));

      assertThat(next).isNotEqualTo(open);
      assertThat(storedPointers()).containsExactly(Map.entry("k", next));
    }

    @Test
    void deletingTheOpenJobRemovesThePointer() {
      JobId open = created(b("k", 1));

      delete(open);

      assertThat(pointerWrites(h.lastTurn())).containsExactly(new DeletePointer(OPEN, "k"));
      JobId next = created(b("k", 2));
      assertThat(next).isNotEqualTo(open);
      assertThat(payload(next)).isEqualTo("[2]");
      assertThat(storedPointers()).containsExactly(Map.entry("k", next));
    }

    @Test
    void deletingASealedJobLeavesTheOpenPointerAlone() {
      JobId first = created(b("k", 1).when("never"));
      JobId second = created(b("k", 2));

      delete(first);

      assertThat(pointerWrites(h.lastTurn())).isEmpty();
      foldedInto(b("k", 3), second);
    }

    @Test
    void aPointerToAJobPatchedIntoTheFutureIsNotFoldedInto() {
      JobId open = created(b("k", 1));
      long later = h.nowMs() + 60_000;
      h.turn((engine, nowMs) -> engine.patch(open, new io.sluice.engine.job.JobPatch(
          null, null, true, later, false, null, false, null, false, false, false, null, false,
          null), nowMs));
      assertThat(h.get(open).status()).isEqualTo(JobStatus.SCHEDULED);

      JobId next = created(b("k", 2));

      assertThat(next).isNotEqualTo(open);
      assertThat(storedPointers()).containsExactly(Map.entry("k", next));
    }
  }

  // ---- scheduled enqueues --------------------------------------------------------------------

  @Nested
  class Scheduled {
    @Test
    void aScheduledBatchedEnqueueNeitherFoldsNorOpens() {
      JobId open = created(b("k", 1));
      fake.reset();
      long later = h.nowMs() + 60_000;

      Enqueued answer = one(b("k", 2).readyAtMs(later));

      assertThat(answer.created()).isTrue();
      assertThat(answer.folded()).isFalse();
      JobId scheduled = answer.job().id();
      assertThat(scheduled).isNotEqualTo(open);
      assertThat(answer.job().status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(answer.job().readyAtMs()).isEqualTo(later);
      assertThat(answer.job().batch()).as("carried for observability")
          .isEqualTo(new BatchConfig("k", "max:3", "concat"));
      assertThat(fake.whenCalls).isEmpty();
      assertThat(fake.foldCalls).isEmpty();
      assertThat(pointerWrites(h.lastTurn())).isEmpty();
      assertThat(payload(open)).isEqualTo("[1]");

      foldedInto(b("k", 3), open);
      assertThat(payload(open)).isEqualTo("[1,3]");
    }

    @Test
    void aPromotedScheduledBatchedJobIsNotAnOpenBatch() {
      JobId scheduled = created(b("k", 1).readyAtMs(h.nowMs() + 1_000));
      assertThat(storedPointers()).isEmpty();
      h.advanceMs(1_000);
      h.runDue();
      assertThat(h.get(scheduled).status()).isEqualTo(JobStatus.READY);

      JobId next = created(b("k", 2));

      assertThat(next).isNotEqualTo(scheduled);
      assertThat(storedPointers()).containsExactly(Map.entry("k", next));
    }

    @Test
    void readyAtNowOrInThePastFolds() {
      JobId open = created(b("k", 1).when("always"));
      foldedInto(b("k", 2).readyAtMs(h.nowMs()), open);
      foldedInto(b("k", 3).readyAtMs(h.nowMs() - 5_000), open);
      assertThat(payload(open)).isEqualTo("[1,2,3]");
    }

    @Test
    void aPastReadyAtOpensABatchToo() {
      JobId open = created(b("k", 1).readyAtMs(h.nowMs() - 1));
      assertThat(storedPointers()).containsExactly(Map.entry("k", open));
    }

    @Test
    void inABulkRequestScheduledElementsAreSkipped() {
      long later = h.nowMs() + 60_000;
      List<Enqueued> answers = bulk(b("k", 1), b("k", 2).readyAtMs(later), b("k", 3));

      assertThat(answers).extracting(Enqueued::created).containsExactly(true, true, false);
      assertThat(answers.get(1).job().status()).isEqualTo(JobStatus.SCHEDULED);
      assertThat(answers.get(2).job().id()).isEqualTo(answers.get(0).job().id());
      assertThat(payload(answers.get(0).job().id())).isEqualTo("[1,3]");
      assertThat(storedPointers()).containsExactly(Map.entry("k", answers.get(0).job().id()));
    }
  }

  // ---- first enqueue wins --------------------------------------------------------------------

  @Nested
  class FirstEnqueueWins {
    @Test
    void laterExpressionsAreIgnoredWhileTheBatchIsOpen() {
      JobId open = created(b("k", 1));
      BatchConfig governing = new BatchConfig("k", "max:3", "concat");
      fake.reset();

      foldedInto(b("k", 2).when("never").fold("reverse"), open);

      assertThat(fake.whenCalls).containsExactly(governing);
      assertThat(fake.foldCalls).containsExactly(governing);
      assertThat(payload(open)).as("concat, not reverse").isEqualTo("[1,2]");
      assertThat(h.get(open).batch()).isEqualTo(governing);
    }

    @Test
    void aNewBatchIsGovernedByTheRequestThatOpenedIt() {
      JobId first = created(b("k", 1, 2));
      JobId second = created(b("k", 3, 4).when("always").fold("reverse"));
      assertThat(second).isNotEqualTo(first);
      fake.reset();

      foldedInto(b("k", 5).when("never").fold("concat"), second);

      BatchConfig governing = new BatchConfig("k", "always", "reverse");
      assertThat(fake.whenCalls).containsExactly(governing);
      assertThat(payload(second)).isEqualTo("[5,3,4]");
      assertThat(h.get(second).batch()).isEqualTo(governing);
    }
  }

  // ---- bulk requests -------------------------------------------------------------------------

  @Nested
  class Bulk {
    @Test
    void severalFoldsIntoAnExistingJobThenSealMidRequest() {
      JobId open = created(b("k", 1));

      List<Enqueued> answers = bulk(b("k", 2), b("k", 3), b("k", 4), b("k", 5));

      assertThat(answers).extracting(Enqueued::folded).containsExactly(true, true, false, true);
      assertThat(answers).extracting(Enqueued::created).containsExactly(false, false, true, false);
      assertThat(answers).extracting(Enqueued::duplicate).containsOnly(false);
      JobId sealedInto = answers.get(2).job().id();
      assertThat(answers.get(0).job().id()).isEqualTo(open);
      assertThat(answers.get(1).job().id()).isEqualTo(open);
      assertThat(answers.get(3).job().id()).isEqualTo(sealedInto);
      assertThat(payload(open)).isEqualTo("[1,2,3]");
      assertThat(payload(sealedInto)).isEqualTo("[4,5]");
      assertThat(storedPayloads()).containsEntry(open, "[1,2,3]").containsEntry(sealedInto, "[4,5]");
      assertThat(storedPointers()).containsExactly(Map.entry("k", sealedInto));
      assertThat(h.engine().jobCount()).isEqualTo(2);
    }

    @Test
    void foldsIntoAJobCreatedEarlierInTheSameRequest() {
      List<Enqueued> answers = bulk(b("k", 1), b("k", 2), b("k", 3));

      assertThat(answers).extracting(Enqueued::created).containsExactly(true, false, false);
      assertThat(answers).extracting(Enqueued::folded).containsExactly(false, true, true);
      JobId id = answers.get(0).job().id();
      assertThat(answers).extracting(a -> a.job().id()).containsOnly(id);
      assertThat(payload(id)).isEqualTo("[1,2,3]");
      assertThat(storedPayloads()).containsExactly(Map.entry(id, "[1,2,3]"));
      assertThat(storedPointers()).containsExactly(Map.entry("k", id));
      assertThat(h.engine().jobCount()).isEqualTo(1);

      h.openWorker("q", 0);
      List<JobSnapshot> delivered = h.dispatch();
      assertThat(delivered).hasSize(1);
      assertThat(new String(delivered.get(0).payload(), StandardCharsets.UTF_8))
          .isEqualTo("[1,2,3]");
    }

    @Test
    void aCreatedHereBatchIsSealedAndReopenedWithinTheRequest() {
      List<Enqueued> answers = bulk(b("k", 1, 2), b("k", 3), b("k", 4), b("k", 5, 6), b("k", 7));

      assertThat(answers).extracting(Enqueued::folded)
          .containsExactly(false, true, false, true, false);
      JobId a = answers.get(0).job().id();
      JobId c = answers.get(2).job().id();
      JobId e = answers.get(4).job().id();
      assertThat(answers.get(1).job().id()).isEqualTo(a);
      assertThat(answers.get(3).job().id()).isEqualTo(c);
      assertThat(payload(a)).isEqualTo("[1,2,3]");
      assertThat(payload(c)).isEqualTo("[4,5,6]");
      assertThat(payload(e)).isEqualTo("[7]");
      assertThat(storedPayloads()).containsEntry(a, "[1,2,3]").containsEntry(c, "[4,5,6]")
          .containsEntry(e, "[7]");
      assertThat(storedPointers()).containsExactly(Map.entry("k", e));
    }

    @Test
    void interleavedKeysFoldIntoTheirOwnJobs() {
      List<Enqueued> answers = bulk(b("a", 1), b("b", 10), b("a", 2), b("b", 20),
          b("x", 99).unbatched());

      JobId a = answers.get(0).job().id();
      JobId bee = answers.get(1).job().id();
      assertThat(answers.get(2).job().id()).isEqualTo(a);
      assertThat(answers.get(3).job().id()).isEqualTo(bee);
      assertThat(answers.get(4).created()).isTrue();
      assertThat(payload(a)).isEqualTo("[1,2]");
      assertThat(payload(bee)).isEqualTo("[10,20]");
      assertThat(storedPointers()).containsOnly(Map.entry("a", a), Map.entry("b", bee));
    }

    @Test
    void laterElementsExpressionsAreIgnoredForAJobCreatedHere() {
      List<Enqueued> answers = bulk(b("k", 1).when("always").fold("reverse"),
          b("k", 2).when("never").fold("concat"), b("k", 3).when("never"));

      assertThat(answers).extracting(Enqueued::folded).containsExactly(false, true, true);
      assertThat(payload(answers.get(0).job().id())).isEqualTo("[3,2,1]");
    }

    @Test
    void aFoldFailureAbortsTheWholeRequest() {
      h.budget("b1", whileInFlight(10));
      JobId open = created(b("k", 1).when("always").fold("concat-unless-666"));
      int jobsBefore = h.engine().jobCount();
      List<String> budgetsBefore = h.budgets().list().stream().map(BudgetView::key).toList();
      Map<JobId, String> payloadsBefore = storedPayloads();
      int mutationsBefore = h.mutations().size();
      fake.reset();

      assertThatThrownBy(() -> bulk(
          b("x", 1).unbatched().budget("fresh-1", whileInFlight(4)),
          b("k", 2),
          b("other", 50).budget("fresh-2", whileInFlight(4)),
          b("other", 51),
          b("k", 3, 4).budget("b1"),
          b("k", 666)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("jobs[5]: batch fold failed: poison 666");

      assertThat(fake.foldCalls).as("the earlier folds did run").hasSizeGreaterThanOrEqualTo(2);
      assertThat(h.lastTurn()).as("nothing written").isEmpty();
      assertThat(h.mutations()).hasSize(mutationsBefore);
      assertThat(h.engine().jobCount()).isEqualTo(jobsBefore);
      assertThat(h.budgets().list()).extracting(BudgetView::key)
          .containsExactlyElementsOf(budgetsBefore);
      assertThat(payload(open)).as("no payload changed in memory").isEqualTo("[1]");
      assertThat(storedPayloads()).isEqualTo(payloadsBefore);
      assertThat(storedPointers()).containsExactly(Map.entry("k", open));

      // Nothing moved: the next enqueues see the state from before the request.
      foldedInto(b("k", 2), open);
      assertThat(payload(open)).isEqualTo("[1,2]");
      assertThat(one(b("other", 52)).created()).as("no batch was opened for 'other'").isTrue();
    }

    @Test
    void aFoldFailureIntoAJobCreatedInTheSameRequestAbortsIt() {
      assertThatThrownBy(() -> bulk(b("k", 1).fold("concat-unless-666"), b("k", 2),
          b("k", 666)))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("jobs[2]: batch fold failed: poison 666");

      assertThat(h.lastTurn()).isEmpty();
      assertThat(h.engine().jobCount()).isZero();
      assertThat(storedPointers()).isEmpty();
      assertThat(created(b("k", 5))).isNotNull();
    }

    @Test
    void aSingleFoldFailureIsUnprefixedAndChangesNothing() {
      JobId open = created(b("k", 1).fold("concat-unless-666"));

      assertThatThrownBy(() -> one(b("k", 666).budget("fresh", whileInFlight(2))))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage("batch fold failed: poison 666");

      assertThat(h.lastTurn()).isEmpty();
      assertThat(h.engine().jobCount()).isEqualTo(1);
      assertThat(h.budgets().list()).extracting(BudgetView::key).doesNotContain("fresh");
      assertThat(payload(open)).isEqualTo("[1]");
      foldedInto(b("k", 2), open);
    }

    @Test
    void aBudgetFailureAfterFoldsAbortsThemToo() {
      JobId open = created(b("k", 1));

      assertThatThrownBy(() -> bulk(b("k", 2), b("k", 3).budget("missing")))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessageStartingWith("jobs[1]: ");

      assertThat(h.lastTurn()).isEmpty();
      assertThat(payload(open)).isEqualTo("[1]");
    }
  }

  // ---- restart -------------------------------------------------------------------------------

  @Nested
  class Restart {
    /** What a store holds: job records, payloads and open-batch pointers. */
    private record Stored(List<JobSnapshot> jobs, Map<JobId, String> payloads,
        Map<String, JobId> pointers) {}

    private Stored restart() {
      Map<JobId, JobSnapshot> jobs = new LinkedHashMap<>();
      for (Mutation m : h.mutations()) {
        if (m instanceof Mutation.PutJob p) {
          jobs.put(p.job().id(), p.job());
        } else if (m instanceof Mutation.DeleteJob d) {
          jobs.remove(d.id());
        }
      }
      Stored stored = new Stored(List.copyOf(jobs.values()), storedPayloads(), storedPointers());
      h = h.restart(stored.jobs());
      h.turn((engine, nowMs) -> {
        stored.pointers().forEach((key, id) -> engine.recoverOpenBatch(key, id,
            stored.payloads().containsKey(id)
                ? stored.payloads().get(id).getBytes(StandardCharsets.UTF_8)
                : null));
        return null;
      });
      return stored;
    }

    @Test
    void foldingContinuesIntoTheSameJob() {
      JobId open = created(b("k", 1));
      foldedInto(b("k", 2), open);

      restart();

      assertThat(pointerWrites(h.lastTurn())).as("the pointer is kept").isEmpty();
      foldedInto(b("k", 3), open);
      assertThat(payload(open)).isEqualTo("[1,2,3]");
      assertThat(of(h.lastTurn(), PutPayload.class)).hasSize(1);
      h.openWorker("q", 0);
      List<JobSnapshot> delivered = h.dispatch();
      assertThat(delivered).extracting(JobSnapshot::id).containsExactly(open);
      assertThat(new String(delivered.get(0).payload(), StandardCharsets.UTF_8))
          .isEqualTo("[1,2,3]");
    }

    @Test
    void theRestoredBatchKeepsItsExpressionsAndSealsAsBefore() {
      JobId open = created(b("k", 1, 2).when("max:3").fold("reverse"));

      restart();

      foldedInto(b("k", 3).when("always").fold("concat"), open);
      assertThat(payload(open)).isEqualTo("[3,1,2]");
      JobId next = created(b("k", 4));
      assertThat(next).isNotEqualTo(open);
    }

    @Test
    void aSealedBatchStaysSealed() {
      JobId first = created(b("k", 1, 2, 3));
      JobId second = created(b("k", 4));

      restart();

      foldedInto(b("k", 5), second);
      assertThat(payload(second)).isEqualTo("[4,5]");
      assertThat(h.get(first).status()).isEqualTo(JobStatus.READY);
    }

    @Test
    void aPointerToAMissingJobIsDropped() {
      JobId ghost = ids.next(h.nowMs());
      h = h.restart(List.of());
      h.turn((engine, nowMs) -> {
        engine.recoverOpenBatch("ghost", ghost, "[1]".getBytes(StandardCharsets.UTF_8));
        return null;
      });

      assertThat(pointerWrites(h.lastTurn())).containsExactly(new DeletePointer(OPEN, "ghost"));
      JobId next = created(b("ghost", 2));
      assertThat(next).isNotEqualTo(ghost);
      assertThat(payload(next)).isEqualTo("[2]");
    }

    @Test
    void aPointerToAScheduledJobIsDropped() {
      JobId open = created(b("k", 1));
      long later = h.nowMs() + 60_000;
      h.turn((engine, nowMs) -> engine.patch(open, new io.sluice.engine.job.JobPatch(
          null, null, true, later, false, null, false, null, false, false, false, null, false,
          null), nowMs));
      assertThat(storedPointers()).as("still stored before the restart")
          .containsExactly(Map.entry("k", open));

      restart();

      assertThat(pointerWrites(h.lastTurn())).containsExactly(new DeletePointer(OPEN, "k"));
      assertThat(created(b("k", 2))).isNotEqualTo(open);
    }
  }
}

package io.sluice.engine;

import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.Budget;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.PolicyPatch;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.dispatch.JobSink;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.store.Mutation;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Drives an {@link Engine} by hand, turn by turn, the way {@code EngineLoop} does but on the test
 * thread and with a {@link ManualClock}.
 *
 * <p>Every call is one turn at the clock's current time: the engine applies the call, the turn's
 * mutations are "committed" (recorded here, so tests can assert on them) and new jobs are handed
 * back through {@link Engine#committed}. {@link #dispatch()} is the loop's own step: it promotes
 * and reaps what is due, then dispatches. Nothing here starts a thread or sleeps.
 *
 * <p>Every write is also checked against the index entries a store would hold: a write must name
 * exactly the entry its record was last written with. So is where the payload is: a rewrite
 * carries over a payload its record holds, and only such a one. The recorded mutations drop the
 * entries and the payload places, so tests compare records and deletions only.
 */
public final class EngineHarness {
  private final ManualClock clock;
  private final Engine engine;
  private final JobIdGenerator ids;
  /** The batch evaluator the engine was built with (kept across {@link #restart}), or null. */
  private final BatchExpressions batchExpressions;
  private final List<Mutation> mutations = new ArrayList<>();
  /** The same mutations as the engine wrote them, index entries and payload places kept. */
  private final List<Mutation> asWritten = new ArrayList<>();
  private List<Mutation> lastTurn = List.of();
  /** What each stored record is indexed under, as a store would hold it. */
  private final Map<JobId, IndexEntry> storedIndex = new HashMap<>();
  /** The jobs whose stored record holds the payload ({@link Mutation.PutJob#payloadInRecord}). */
  private final Set<JobId> recordHoldsPayload = new HashSet<>();
  /** Jobs handed to any worker during the current {@link #dispatch()} call. */
  private final List<JobSnapshot> deliveredThisTurn = new ArrayList<>();
  /** Where every turn is committed (a failed commit rolls the engine back), or null for none. */
  private MemoryJobStore store;

  private EngineHarness(EngineConfig config, ManualClock clock) {
    this(config, clock, new JobIdGenerator());
  }

  private EngineHarness(EngineConfig config, ManualClock clock, JobIdGenerator ids) {
    this(config, clock, ids, null);
  }

  /** {@code batchExpressions} null: an engine built without batch support. */
  private EngineHarness(EngineConfig config, ManualClock clock, JobIdGenerator ids,
      BatchExpressions batchExpressions) {
    this.clock = clock;
    this.engine = batchExpressions == null
        ? new Engine(config)
        : new Engine(config, batchExpressions);
    this.ids = ids;
    this.batchExpressions = batchExpressions;
  }

  public static EngineHarness create() {
    return create(EngineConfig.defaults());
  }

  public static EngineHarness create(EngineConfig config) {
    return new EngineHarness(config, new ManualClock());
  }

  /** An engine that folds batched jobs with {@code batchExpressions} (API.md §4.6). */
  public static EngineHarness create(EngineConfig config, BatchExpressions batchExpressions) {
    return new EngineHarness(config, new ManualClock(), new JobIdGenerator(), batchExpressions);
  }

  /** An engine whose every turn is committed to {@code store}, as the loop commits it. */
  public static EngineHarness writingTo(MemoryJobStore store) {
    EngineHarness harness = create();
    harness.store = store;
    return harness;
  }

  public Engine engine() {
    return engine;
  }

  public ManualClock clock() {
    return clock;
  }

  public long nowMs() {
    return clock.millis();
  }

  // ---- enqueue -------------------------------------------------------------------------------

  /** A job to enqueue on {@code queue}, with server defaults until a setter says otherwise. */
  public static JobSpec job(String queue) {
    return new JobSpec(queue);
  }

  public JobSnapshot enqueue(String queue) {
    return enqueue(job(queue));
  }

  public JobSnapshot enqueue(JobSpec spec) {
    return enqueue(new JobSpec[] {spec}).get(0);
  }

  public List<JobSnapshot> enqueue(int count, String queue) {
    JobSpec[] specs = new JobSpec[count];
    Arrays.setAll(specs, i -> job(queue));
    return enqueue(specs);
  }

  /** Enqueues the jobs in one turn, in argument order (so ids ascend in that order). */
  public List<JobSnapshot> enqueue(JobSpec... specs) {
    List<NewJob> requests = new ArrayList<>(specs.length);
    for (JobSpec spec : specs) {
      requests.add(spec.toNewJob(ids.next(nowMs())));
    }
    try {
      return engine.enqueue(requests, nowMs());
    } finally {
      endTurn();
    }
  }

  /**
   * Enqueues the jobs as one bulk request ({@code POST /jobs/bulk}): all or none, and a binding
   * failure names the job by index.
   */
  public List<JobSnapshot> enqueueBulk(JobSpec... specs) {
    List<NewJob> requests = new ArrayList<>(specs.length);
    for (JobSpec spec : specs) {
      requests.add(spec.toNewJob(ids.next(nowMs())));
    }
    try {
      return engine.enqueue(requests, true, nowMs());
    } finally {
      endTurn();
    }
  }

  /**
   * Runs {@code action} on the engine as one turn at the clock's current time, for engine calls
   * this harness has no helper for (e.g. {@code enqueueAll}, {@code delete}, {@code recoverClaim}).
   */
  public <T> T turn(java.util.function.BiFunction<Engine, Long, T> action) {
    try {
      return action.apply(engine, nowMs());
    } finally {
      endTurn();
    }
  }

  /**
   * {@link Engine#enqueueAll} as one turn: the requests (with their own ids) as a single enqueue
   * ({@code bulk} false) or as {@code POST /jobs/bulk}; answers whether each was created, a
   * duplicate or folded.
   */
  public List<io.sluice.engine.job.Enqueued> enqueueAll(List<NewJob> requests, boolean bulk) {
    try {
      return engine.enqueueAll(requests, bulk, nowMs());
    } finally {
      endTurn();
    }
  }

  // ---- budgets -------------------------------------------------------------------------------

  /** A concurrency budget policy: {@code allocation} tokens held while jobs are in flight. */
  public static PolicySpec whileInFlight(long allocation) {
    return new PolicySpec(allocation, "while_in_flight", null, null);
  }

  /** A rate budget policy: {@code allocation} tokens per {@code duration}, burst defaulted. */
  public static PolicySpec timeBased(long allocation, Duration duration) {
    return new PolicySpec(allocation, "time_based", duration.toMillis(), null);
  }

  public static PolicySpec timeBased(long allocation, Duration duration, long burst) {
    return new PolicySpec(allocation, "time_based", duration.toMillis(), burst);
  }

  /** The same policy for a partitioned budget (X3). */
  public static PolicySpec partitioned(PolicySpec policy) {
    return new PolicySpec(policy.allocation(), policy.type(), policy.durationMs(), policy.burst(),
        policy.durable(), true);
  }

  /** The budget resource, for reads; use the turn-wrapped helpers below for changes. */
  public BudgetAdmin budgets() {
    return engine.budgetAdmin();
  }

  /** Creates or replaces a budget ({@code PUT /budgets/{key}}) in one turn; for chaining. */
  public EngineHarness budget(String key, PolicySpec spec) {
    putBudget(key, spec);
    return this;
  }

  public BudgetView createBudget(String key, PolicySpec spec) {
    try {
      return budgets().create(key, spec, nowMs());
    } finally {
      endTurn();
    }
  }

  public BudgetView putBudget(String key, PolicySpec spec) {
    try {
      return budgets().put(key, spec, nowMs());
    } finally {
      endTurn();
    }
  }

  public BudgetView patchBudget(String key, PolicyPatch patch) {
    try {
      return budgets().patch(key, patch, nowMs());
    } finally {
      endTurn();
    }
  }

  /** {@code PATCH /budgets/{key} {"allocation": n}}. */
  public BudgetView patchAllocation(String key, long allocation) {
    return patchBudget(key, new PolicyPatch(allocation, null, null, null, false));
  }

  public void deleteBudget(String key) {
    try {
      budgets().delete(key);
    } finally {
      endTurn();
    }
  }

  private Budget liveBudget(String key) {
    Budget budget = engine.budgets().get(key);
    if (budget == null) {
      throw new IllegalArgumentException("no budget " + key);
    }
    return budget;
  }

  /**
   * The whole tokens budget {@code key} holds as of its last settlement (the drip since then is
   * not added, so reading never changes the bucket).
   */
  public long tokens(String key) {
    return liveBudget(key).bucket().tokens();
  }

  /** The slots budget {@code key} still owes after being narrowed below what runs. */
  public long debt(String key) {
    return liveBudget(key).bucket().debt();
  }

  /** How many ready jobs wait in budget {@code key}'s waiting queues. */
  public int parkedCount(String key) {
    return liveBudget(key).parkedCount();
  }

  /**
   * A fresh engine on the same clock and configuration, loaded the way start-up loads one: every
   * budget this engine holds (policies only, buckets full), then the given stored job records.
   */
  public EngineHarness restart(List<JobSnapshot> stored) {
    EngineHarness fresh = new EngineHarness(engine.config(), clock, ids, batchExpressions);
    for (BudgetView budget : budgets().list()) {
      fresh.engine.recoverBudget(budget, nowMs());
    }
    for (JobSnapshot snapshot : stored) {
      fresh.engine.recover(snapshot.withPayload(null), nowMs());
      fresh.storedIndex.put(snapshot.id(), IndexEntry.of(snapshot));
    }
    fresh.endTurn();
    return fresh;
  }

  /**
   * A fresh engine on the same clock, recovered from the store this one writes to the way
   * start-up recovers one ({@link Engine#recoverFrom}), as after a crash of this one.
   */
  public EngineHarness restartFromStore() {
    EngineHarness fresh = new EngineHarness(engine.config(), clock, ids, batchExpressions);
    fresh.store = store.reopen();
    fresh.engine.recoverFrom(fresh.store, nowMs());
    fresh.store.scanJobs(stored -> {
      fresh.storedIndex.put(stored.id(), IndexEntry.of(stored));
      if (stored.payload() != null) {
        fresh.recordHoldsPayload.add(stored.id());
      }
    });
    fresh.endTurn();
    return fresh;
  }

  // ---- workers and dispatch ------------------------------------------------------------------

  /** Opens a take stream; {@code queues} null means every queue, {@code prefetch} 0 unlimited. */
  public Worker openWorker(Set<String> queues, int prefetch) {
    Worker worker = new Worker(false);
    worker.session = engine.openSession(queues, prefetch, worker);
    return worker;
  }

  public Worker openWorker(String queue, int prefetch) {
    return openWorker(Set.of(queue), prefetch);
  }

  /**
   * Opens a take stream paced by its writes, as the HTTP transport's: after each delivery it gets
   * nothing more until {@link #written} reports the delivery written.
   */
  public Worker openPacedWorker(String queue, int prefetch) {
    Worker worker = new Worker(true);
    worker.session = engine.openSession(Set.of(queue), prefetch, worker);
    return worker;
  }

  /** The transport wrote the worker's last delivery. */
  public void written(Worker worker) {
    engine.sessionWritten(worker.session);
  }

  /** The worker disconnects: its unfinished jobs go back to ready. */
  public void close(Worker worker) {
    engine.closeSession(worker.session, nowMs());
    endTurn();
  }

  /** One loop step: promote and reap what is due, dispatch; returns what workers received. */
  public List<JobSnapshot> dispatch() {
    deliveredThisTurn.clear();
    engine.runDue(nowMs());
    engine.dispatch(nowMs());
    endTurn();
    return List.copyOf(deliveredThisTurn);
  }

  // ---- time ----------------------------------------------------------------------------------

  public void advance(Duration duration) {
    clock.advance(duration);
  }

  public void advanceMs(long deltaMs) {
    clock.advanceMs(deltaMs);
  }

  /** Only the timer step of a turn (promotion and reaping), without dispatching. */
  public void runDue() {
    engine.runDue(nowMs());
    endTurn();
  }

  // ---- acknowledgements ----------------------------------------------------------------------

  public void ack(JobId id) {
    engine.complete(id, nowMs());
    endTurn();
  }

  /** {@code POST /jobs/success}: completes the in-flight ones; returns the ids that were not. */
  public List<String> completeAll(JobId... ids) {
    try {
      return engine.completeAll(
          AckedIds.of(Arrays.stream(ids).map(JobId::toString).toList()), nowMs());
    } finally {
      endTurn();
    }
  }

  /** Fails with a plain message and no jitter. */
  public JobSnapshot fail(JobId id) {
    return fail(id, failure("boom"));
  }

  public JobSnapshot fail(JobId id, FailureReport report) {
    JobSnapshot result = engine.fail(id, report, nowMs());
    endTurn();
    return result;
  }

  public static FailureReport failure(String message) {
    return new FailureReport(message, null, null, null, false, 0.0);
  }

  public static FailureReport failureWithJitter(double uniform) {
    return new FailureReport("boom", null, null, null, false, uniform);
  }

  public static FailureReport failureRetryingAt(long retryAtMs) {
    return new FailureReport("boom", null, null, retryAtMs, false, 0.0);
  }

  public static FailureReport killingFailure() {
    return new FailureReport("boom", null, null, null, true, 0.0);
  }

  // ---- reads and recovery --------------------------------------------------------------------

  public JobSnapshot get(JobId id) {
    return engine.get(id, nowMs());
  }

  public void recover(JobSnapshot... stored) {
    for (JobSnapshot snapshot : stored) {
      engine.recover(snapshot, nowMs());
      storedIndex.put(snapshot.id(), IndexEntry.of(snapshot));
      if (snapshot.payload() != null) {
        recordHoldsPayload.add(snapshot.id());
      }
    }
  }

  /** Every mutation committed so far, in commit order. */
  public List<Mutation> mutations() {
    return List.copyOf(mutations);
  }

  /** Every mutation committed so far as the engine wrote it, for a store to commit. */
  public List<Mutation> writtenMutations() {
    return List.copyOf(asWritten);
  }

  public <M extends Mutation> List<M> mutations(Class<M> type) {
    return mutations.stream().filter(type::isInstance).map(type::cast).toList();
  }

  /** The mutations of the most recent turn. */
  public List<Mutation> lastTurn() {
    return lastTurn;
  }

  private void endTurn() {
    Turn turn = engine.takeTurn();
    if (store != null && !turn.mutations().isEmpty()) {
      try {
        store.commit(new CommitBatch(turn.mutations(), false));
      } catch (RuntimeException e) {
        // As EngineLoop does: the turn is undone by rebuilding from the store.
        lastTurn = List.of();
        engine.rollBack(store, List.of(turn), nowMs());
        return;
      }
    }
    lastTurn = turn.mutations().stream().map(this::checkIndexed).toList();
    mutations.addAll(lastTurn);
    asWritten.addAll(turn.mutations());
    if (!turn.newJobs().isEmpty()) {
      engine.committed(turn.newJobs(), nowMs());
    }
    engine.deliverCommitted(turn);
  }

  /**
   * Fails on a write that names another index entry than the stored one, or that would lose or
   * leave behind a payload its record holds; strips the entry and where the payload is.
   */
  private Mutation checkIndexed(Mutation mutation) {
    if (mutation instanceof Mutation.PutJob put) {
      IndexEntry stored = storedIndex.put(put.job().id(), IndexEntry.of(put.job()));
      if (!java.util.Objects.equals(stored, put.previous())) {
        throw new AssertionError("write of " + put.job().id() + " names index entry "
            + put.previous() + " but the store holds " + stored);
      }
      checkPayloadPlace(put);
      return new Mutation.PutJob(put.job());
    }
    if (mutation instanceof Mutation.PutPayload put && recordHoldsPayload.contains(put.id())) {
      throw new AssertionError("a payload of its own for " + put.id()
          + ", whose record holds one: reads would find the record's");
    }
    if (mutation instanceof Mutation.DeleteJob delete) {
      IndexEntry stored = storedIndex.remove(delete.id());
      if (!java.util.Objects.equals(stored, delete.indexed())) {
        throw new AssertionError("deletion of " + delete.id() + " names index entry "
            + delete.indexed() + " but the store holds " + stored);
      }
      if (recordHoldsPayload.remove(delete.id()) != delete.payloadInRecord()) {
        throw new AssertionError("deletion of " + delete.id() + " says payloadInRecord="
            + delete.payloadInRecord() + " but the record " + (delete.payloadInRecord()
            ? "holds none" : "holds it"));
      }
      return new Mutation.DeleteJob(delete.id(), delete.errorRecords());
    }
    return mutation;
  }

  private void checkPayloadPlace(Mutation.PutJob put) {
    JobId id = put.job().id();
    boolean held = recordHoldsPayload.contains(id);
    if (put.payload() != null) {
      if (put.previous() != null) {
        throw new AssertionError("rewrite of " + id + " puts a payload into its record");
      }
      recordHoldsPayload.add(id);
    } else if (put.payloadInRecord() && !held) {
      throw new AssertionError("rewrite of " + id + " carries a payload its record lacks");
    } else if (!put.payloadInRecord() && held) {
      throw new AssertionError("rewrite of " + id + " drops the payload its record holds");
    }
  }

  // ---- helper types --------------------------------------------------------------------------

  /** A take stream that records what it receives. */
  public final class Worker implements JobSink {
    private final List<JobSnapshot> received = new ArrayList<>();
    private final boolean paced;
    private WorkerSession session;

    private Worker(boolean paced) {
      this.paced = paced;
    }

    @Override
    public boolean pacedByWrites() {
      return paced;
    }

    @Override
    public void deliver(List<JobSnapshot> jobs) {
      received.addAll(jobs);
      deliveredThisTurn.addAll(jobs);
    }

    public WorkerSession session() {
      return session;
    }

    /** Every job delivered to this worker, in delivery order. */
    public List<JobSnapshot> received() {
      return List.copyOf(received);
    }

    public List<JobId> receivedIds() {
      return received.stream().map(JobSnapshot::id).toList();
    }
  }

  /** An enqueue request under construction; unset fields take the server defaults. */
  public static final class JobSpec {
    private final String queue;
    private String type = "test_job";
    private int priority = NewJob.DEFAULT_PRIORITY;
    private Long readyAtMs;
    private Integer retryLimit;
    private BackoffPolicy backoff;
    private RetentionPolicy retention;
    private byte[] payload = "{}".getBytes(StandardCharsets.UTF_8);
    private final List<BindingRequest> budgets = new ArrayList<>();

    private JobSpec(String queue) {
      this.queue = queue;
    }

    public JobSpec type(String type) {
      this.type = type;
      return this;
    }

    public JobSpec priority(int priority) {
      this.priority = priority;
      return this;
    }

    public JobSpec readyAtMs(long readyAtMs) {
      this.readyAtMs = readyAtMs;
      return this;
    }

    public JobSpec retryLimit(int retryLimit) {
      this.retryLimit = retryLimit;
      return this;
    }

    public JobSpec backoff(BackoffPolicy backoff) {
      this.backoff = backoff;
      return this;
    }

    public JobSpec retention(RetentionPolicy retention) {
      this.retention = retention;
      return this;
    }

    public JobSpec payload(String json) {
      this.payload = json.getBytes(StandardCharsets.UTF_8);
      return this;
    }

    /** Binds the job to an existing budget at cost 1 (the default). */
    public JobSpec budget(String key) {
      budgets.add(new BindingRequest(key, null, null));
      return this;
    }

    public JobSpec budget(String key, long cost) {
      budgets.add(new BindingRequest(key, cost, null));
      return this;
    }

    /** Binds the job at cost 1 to one partition of a partitioned budget (X3). */
    public JobSpec partition(String key, String partition) {
      budgets.add(new BindingRequest(key, null, null, partition));
      return this;
    }

    public JobSpec partition(String key, String partition, long cost) {
      budgets.add(new BindingRequest(key, cost, null, partition));
      return this;
    }

    /** The same, creating the budget with {@code createWith} if it does not exist. */
    public JobSpec partition(String key, String partition, PolicySpec createWith) {
      budgets.add(new BindingRequest(key, null, createWith, partition));
      return this;
    }

    /** Binds the job, creating the budget with {@code createWith} if it does not exist. */
    public JobSpec budget(String key, Long cost, PolicySpec createWith) {
      budgets.add(new BindingRequest(key, cost, createWith));
      return this;
    }

    NewJob toNewJob(JobId id) {
      return new NewJob(id, type, queue, priority, readyAtMs, retryLimit, backoff, retention,
          payload, List.copyOf(budgets));
    }
  }
}

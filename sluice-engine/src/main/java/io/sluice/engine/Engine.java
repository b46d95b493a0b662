package io.sluice.engine;

import io.sluice.engine.budget.BindingChange;
import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.BulkRebindResult;
import io.sluice.engine.budget.JobSettlement;
import io.sluice.engine.budget.Settlement;
import io.sluice.engine.dispatch.JobSink;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.Enqueued;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobPatch;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.query.JobFilter;
import io.sluice.engine.store.JobStore;
import io.sluice.engine.store.Mutation;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The job state machine, as the engine loop sees it: every state change is a method here, applied
 * on one thread with the time passed in, so the same calls with the same times (and the same id
 * source) always have the same effect. Each call is handed to the room that owns the verb
 * ({@link Enqueuing}, {@link Completions}, {@link JobEdits}, {@link TakeStreams}, {@link DueWork},
 * {@link CronAdmin}, {@link BudgetAdmin}); the {@link io.sluice.engine.dispatch.Dispatcher}
 * decides which job goes where. Durable effects accumulate in the current {@link Turn}.
 *
 * <p>Owned by the engine thread, except what it publishes for other threads
 * ({@link #inFlightView}, {@link #budgetStates}, {@link #queueCounts}), {@link #observe} and
 * {@link #durable}.
 */
public final class Engine {
  private final EngineConfig config;
  private final BatchExpressions batchExpressions;
  private final JobIdGenerator jobIds;
  private final ZoneId cronDefaultZone;
  /** Read by the query API from any thread; kept across a rebuild (see {@link #rollBack}). */
  private final Map<JobId, Long> inFlightView = new ConcurrentHashMap<>();
  /** Every budget's published state (X1), read from any thread; kept across a rebuild. */
  private final Map<String, BudgetState> budgetStates = new ConcurrentHashMap<>();
  /** Jobs per queue and status, read from any thread; kept across a rebuild. */
  private final Map<String, QueueCounts> queueCounts = new ConcurrentHashMap<>();
  private final ObserverSlot observer = new ObserverSlot();
  private Rooms rooms;
  private long nextSessionId = 1;

  public Engine(EngineConfig config) {
    this(config, BatchExpressions.NONE);
  }

  public Engine(EngineConfig config, BatchExpressions batchExpressions) {
    this(config, batchExpressions, new JobIdGenerator());
  }

  /** An engine whose cron groups without a time zone run on UTC. */
  public Engine(EngineConfig config, BatchExpressions batchExpressions, JobIdGenerator jobIds) {
    this(config, batchExpressions, jobIds, ZoneOffset.UTC);
  }

  /**
   * {@code jobIds} must be the generator the API gives enqueued jobs too, so that ids made by
   * cron fires and by requests in the same millisecond still sort in creation order.
   * {@code cronDefaultZone} is the zone of cron groups that name none; the server passes the
   * machine's, chosen at the edge so that the engine itself never reads it.
   */
  public Engine(EngineConfig config, BatchExpressions batchExpressions, JobIdGenerator jobIds,
      ZoneId cronDefaultZone) {
    this.config = config;
    this.batchExpressions = batchExpressions;
    this.jobIds = jobIds;
    this.cronDefaultZone = cronDefaultZone;
    this.rooms = newRooms();
  }

  private Rooms newRooms() {
    return new Rooms(config, batchExpressions, jobIds, cronDefaultZone, inFlightView,
        budgetStates, queueCounts, observer);
  }

  /** Who is told what happens to jobs (metrics, live feeds); none until set. */
  public void observe(EngineObserver observer) {
    this.observer.set(observer);
  }

  /** The observer slot, for the loop to report its commits through. */
  EngineObserver observer() {
    return observer;
  }

  public EngineConfig config() {
    return config;
  }

  BudgetBook budgets() {
    return rooms.budgets;
  }

  Rooms rooms() {
    return rooms;
  }

  void write(Mutation mutation) {
    rooms.writes.write(mutation);
  }

  // ---- recovery ------------------------------------------------------------------------------

  /** Loads everything the store holds, in order; call once, before the loop starts. */
  public RecoveryReport recoverFrom(JobStore store, long nowMs) {
    RecoveryReport report = new Recovery(rooms).run(store, nowMs);
    publishAll();
    return report;
  }

  /** Loads one stored budget, bucket full; before {@link #recover}. */
  public void recoverBudget(BudgetView stored, long nowMs) {
    new Recovery(rooms).budget(stored, nowMs);
  }

  /** Sizes the job table for about {@code expectedJobs} before recovery fills it. */
  public void expectRecoveredJobs(long expectedJobs) {
    rooms.jobs.expect(expectedJobs);
  }

  /** Loads one stored job; one that was in flight comes back ready. */
  public void recover(JobSnapshot stored, long nowMs) {
    new Recovery(rooms).job(stored, nowMs);
  }

  /** Loads one stored open-batch pointer and that job's payload, after the jobs. */
  public void recoverOpenBatch(String key, JobId jobId, byte[] payload) {
    new Recovery(rooms).openBatch(key, jobId, payload);
  }

  /** Loads one stored unique-key claim, after every job. */
  public void recoverClaim(String key, JobId holder) {
    new Recovery(rooms).claim(key, holder);
  }

  /** Ends start-up: jobs that were in flight at a crash retake their free unique keys. */
  public void recoverRequeuedClaims() {
    new Recovery(rooms).requeuedClaims();
  }

  /**
   * Undoes turns whose commit failed: the state is rebuilt from the store, which holds every
   * turn before them, and the open streams keep the jobs they hold (see {@link Rebuild}).
   * {@code undone} are the failed turns, oldest first.
   */
  public void rollBack(JobStore store, List<Turn> undone, long nowMs) {
    Rooms rebuilt = newRooms();
    new Recovery(rebuilt).run(store, nowMs);
    new Rebuild(rooms, rebuilt, undone).carryOver(nowMs);
    // Only once the rebuild stands (a failed one keeps the old rooms, jobs and all): the
    // rebuilt table holds jobs read back from the store, never these objects.
    rooms.jobs.discard();
    rooms = rebuilt;
    publishAll();
  }

  // ---- enqueue -------------------------------------------------------------------------------

  /** Stores new jobs; they become dispatchable once this turn is durable. */
  public List<JobSnapshot> enqueue(List<NewJob> requests, long nowMs) {
    return enqueue(requests, false, nowMs);
  }

  public List<JobSnapshot> enqueue(List<NewJob> requests, boolean bulk, long nowMs) {
    return enqueueAll(requests, bulk, nowMs).stream().map(Enqueued::job).toList();
  }

  /** Stores new jobs, all or none, in request order (see {@link Enqueuing#enqueueAll}). */
  public List<Enqueued> enqueueAll(List<NewJob> requests, boolean bulk, long nowMs) {
    return rooms.enqueuing.enqueueAll(requests, bulk, nowMs);
  }

  /** Called once the turn that created these jobs is durable. */
  public void committed(List<Job> newJobs, long nowMs) {
    rooms.enqueuing.committed(newJobs, nowMs);
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** The visible job with its payload if cached (else the caller reads it from the store). */
  public JobSnapshot get(JobId id, long nowMs) {
    return rooms.jobs.visible(id, nowMs).snapshot(true);
  }

  public int jobCount() {
    return rooms.jobs.size();
  }

  /** Job id → dispatch time of every job in flight; safe to read from any thread. */
  public Map<JobId, Long> inFlightView() {
    return Collections.unmodifiableMap(inFlightView);
  }

  /**
   * Budget key → the budget's policy and live state as of the end of the last turn or dispatch
   * (X1); safe to read from any thread, never waits for the engine.
   */
  public Map<String, BudgetState> budgetStates() {
    return Collections.unmodifiableMap(budgetStates);
  }

  /**
   * Queue → its jobs per status, as of the end of the last turn or dispatch; safe to read from
   * any thread, never waits for the engine.
   */
  public Map<String, QueueCounts> queueCounts() {
    return Collections.unmodifiableMap(queueCounts);
  }

  public int inFlightCount() {
    return rooms.dispatcher.inFlightCount();
  }

  /** Jobs not finished: scheduled, ready (parked on a budget too) or in flight. Engine thread. */
  public long unfinishedJobCount() {
    return rooms.jobs.total(JobStatus.SCHEDULED) + activeJobCount();
  }

  /**
   * Unfinished jobs that are not scheduled for later: ready (waiting for a worker, for a budget or
   * for their enqueue's commit) or in flight. Engine thread.
   */
  public long activeJobCount() {
    return rooms.jobs.total(JobStatus.READY) + rooms.jobs.total(JobStatus.IN_FLIGHT);
  }

  /** Queue names of every stored job, in byte order (API.md §8.8). */
  public List<String> queueNames() {
    return rooms.jobs.queueNames();
  }

  /** Why the job is not running yet, and when it could (X2). */
  public JobWait explainWait(JobId id, long nowMs) {
    return rooms.waits.explain(id, nowMs);
  }

  /** The live state in a canonical text form, for tests and diagnostics (see EngineState). */
  public String describe(long nowMs) {
    return EngineState.describe(rooms, nowMs);
  }

  // ---- take streams --------------------------------------------------------------------------

  /** What prefetch 0 means for one stream (see {@link TakeStreams#unlimitedPrefetchCap}). */
  public static int unlimitedPrefetchCap(int globalInFlightLimit) {
    return TakeStreams.unlimitedPrefetchCap(globalInFlightLimit);
  }

  /** Opens a take stream; {@code prefetch} 0 (unlimited) is capped. */
  public WorkerSession openSession(Set<String> queues, int prefetch, JobSink sink) {
    return rooms.streams.open(nextSessionId++, queues, prefetch, sink);
  }

  /** The stream ended: every job it still holds goes back to ready, unchanged. */
  public void closeSession(WorkerSession session, long nowMs) {
    rooms.streams.close(session, nowMs);
  }

  /** The transport wrote the session's last delivery (see {@link JobSink#pacedByWrites}). */
  public void sessionWritten(WorkerSession session) {
    rooms.dispatcher.written(session);
  }

  /** Ends every stream, requeueing their jobs (graceful shutdown). */
  public void closeAllSessions(long nowMs) {
    for (WorkerSession session : rooms.dispatcher.sessions()) {
      rooms.streams.close(session, nowMs);
    }
  }

  /** Hands every dispatchable job to a stream with a free slot. */
  public void dispatch(long nowMs) {
    rooms.streams.dispatch(nowMs);
    publish();
  }

  // ---- acknowledgements ----------------------------------------------------------------------

  public void complete(JobId id, long nowMs) {
    complete(id, List.of(), nowMs);
  }

  /** Completes the job, settling what it really cost on the budgets named (X5). */
  public void complete(JobId id, List<Settlement> settlements, long nowMs) {
    rooms.completions.complete(id, settlements, nowMs);
  }

  /** Completes every id that is in flight; returns those that were not, in request order. */
  public List<String> completeAll(AckedIds ids, long nowMs) {
    return completeAll(ids, List.of(), nowMs);
  }

  /**
   * Completes every id that is in flight, settling the jobs {@code settlements} name (X5, all
   * checked before any is completed); returns the ids that were not in flight, in request order.
   */
  public List<String> completeAll(AckedIds ids, List<JobSettlement> settlements, long nowMs) {
    return rooms.completions.completeAll(ids, settlements, nowMs);
  }

  public JobSnapshot fail(JobId id, FailureReport report, long nowMs) {
    return fail(id, report, List.of(), nowMs);
  }

  /** Records a failure, settling what the attempt really cost on the budgets named (X5). */
  public JobSnapshot fail(JobId id, FailureReport report, List<Settlement> settlements,
      long nowMs) {
    return rooms.completions.fail(id, report, settlements, nowMs);
  }

  // ---- operator changes ----------------------------------------------------------------------

  /** Applies a merge patch to one job; answers it without payload. */
  public JobSnapshot patch(JobId id, JobPatch patch, long nowMs) {
    return rooms.edits.patch(id, patch, nowMs);
  }

  /** Applies a merge patch to every non-terminal job the filter (and {@code ids}) select. */
  public int patchWhere(JobFilter filter, Set<JobId> ids, JobPatch patch, long nowMs) {
    return rooms.edits.patchWhere(filter, ids, patch, nowMs);
  }

  /** Deletes a job in any status (API.md §8.14). */
  public void delete(JobId id, long nowMs) {
    rooms.edits.delete(id, nowMs);
  }

  /** Deletes every job the filter (and {@code ids}) select, in any status. */
  public int deleteWhere(JobFilter filter, Set<JobId> ids, long nowMs) {
    return rooms.edits.deleteWhere(filter, ids, nowMs);
  }

  /** Changes one queued job's bindings; answers the job without payload. */
  public JobSnapshot changeBindings(JobId id, BindingChange change, long nowMs) {
    return rooms.edits.changeBindings(id, change, nowMs);
  }

  /** Changes the bindings of every queued job the filter selects. */
  public BulkRebindResult changeBindingsWhere(JobFilter filter, BindingChange change,
      long nowMs) {
    return changeBindingsWhere(filter, null, change, nowMs);
  }

  /** Like {@link #changeBindingsWhere(JobFilter, BindingChange, long)}, narrowed to {@code ids}. */
  public BulkRebindResult changeBindingsWhere(JobFilter filter, Set<JobId> ids,
      BindingChange change, long nowMs) {
    return rooms.edits.changeBindingsWhere(filter, ids, change, nowMs);
  }

  /** Deletes every cron group, then every job, then every budget (API.md §10). */
  public void reset(long nowMs) {
    rooms.crons.deleteAll();
    rooms.edits.deleteAll(nowMs);
    rooms.budgetAdmin.deleteAll();
  }

  /** Budget administration: the {@code /budgets} endpoints. */
  public BudgetAdmin budgetAdmin() {
    return rooms.budgetAdmin;
  }

  /** Cron administration and firing: the {@code /crons} endpoints. */
  public CronAdmin crons() {
    return rooms.crons;
  }

  // ---- time and turns ------------------------------------------------------------------------

  /** The earliest instant at which {@link #runDue} has work, or {@link Long#MAX_VALUE}. */
  public long nextDeadlineMs() {
    return rooms.due.nextDeadlineMs();
  }

  /** Fires due cron entries, promotes due scheduled jobs and budget heads, reaps. */
  public void runDue(long nowMs) {
    rooms.due.run(nowMs);
  }

  /**
   * Ends the current turn, returning its durable effects: what its commands wrote, then the token
   * state of every durable budget that changed since the last turn (X4), once per budget.
   */
  public Turn takeTurn() {
    publish();
    // Most turns spend no durable budget's tokens; on C1 even an empty map's iterator is made.
    if (rooms.budgets.hasChangedTokenStates()) {
      for (Map.Entry<String, BucketState> changed :
          rooms.budgets.takeChangedTokenStates().entrySet()) {
        String key = changed.getKey();
        BucketState state = changed.getValue();
        rooms.writes.write(state != null ? new Mutation.PutBucketState(key, state)
            : new Mutation.DeleteBucketState(key));
      }
    }
    return rooms.writes.take(rooms.dispatcher.takeDepartures(), rooms.budgets.takeReplaced(),
        rooms.dispatcher.takeAwaitingCommit());
  }

  /**
   * True when the turn just ended left work for another one, though no command waits: writes
   * made after the turn was taken (a dispatch that closes an open batch deletes its pointer), or
   * a dispatch pass made due after the last one (a commit that released held deliveries).
   */
  public boolean hasWorkLeft() {
    return rooms.writes.hasWrites() || rooms.dispatcher.hasDepartures()
        || rooms.budgets.hasChangedTokenStates() || rooms.dispatcher.passDue();
  }

  /**
   * True when the last dispatch left deliveries that wait for the commit of their durable
   * budgets' token state (X4): the loop must take and commit a turn now, not wait for the next
   * command.
   */
  public boolean awaitsCommit() {
    return rooms.dispatcher.awaitsCommit();
  }

  /**
   * Writes to their streams the deliveries that waited for this turn's commit (engine thread, once
   * the turn is durable).
   */
  public void deliverCommitted(Turn turn) {
    rooms.dispatcher.committed(turn.awaitingCommit());
  }

  /** Makes what changed visible to other threads: budget states and queue counts. */
  private void publish() {
    rooms.budgets.publish();
    rooms.jobs.publish();
    observer.published();
  }

  private void publishAll() {
    rooms.budgets.publishAll();
    rooms.jobs.publishAll();
  }

  /**
   * Everything a turn's commit unlocks, on the engine thread once it is durable: its new jobs
   * placed, its departures out of the in-flight view, the deliveries that waited for it. A turn
   * committed on the commit thread gets these in two steps instead (see {@link #durable}).
   */
  public void turnDurable(Turn turn, long nowMs) {
    committed(turn.newJobs(), nowMs);
    durable(turn);
    deliverCommitted(turn);
  }

  /** Called once a turn is durable; safe from the commit thread (touches only the view). */
  public void durable(Turn turn) {
    for (var departure : turn.departures()) {
      // Conditional: a job dispatched again meanwhile keeps its new entry.
      inFlightView.remove(departure.job().id(), departure.dequeuedAtMs());
    }
  }
}

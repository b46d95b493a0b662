package io.sluice.engine;

import io.sluice.engine.budget.Binding;
import io.sluice.engine.budget.BindingChange;
import io.sluice.engine.budget.BindingPlan;
import io.sluice.engine.budget.Budget;
import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.BulkRebindResult;
import io.sluice.engine.dispatch.Dispatcher;
import io.sluice.engine.dispatch.JobSink;
import io.sluice.engine.dispatch.ReadyIndex;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobPatch;
import io.sluice.engine.job.Enqueued;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.query.JobFilter;
import io.sluice.engine.schedule.DeadlineIndex;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.Mutation;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job state machine: every state change is a method here, applied on one thread with the
 * time passed in, so the same calls with the same times always have the same effect.
 *
 * <p>Owned by the engine thread. A live job is in exactly one of: the ready index (unbound), its
 * budgets' waiting queues (bound and ready; an affordable head is also offered in the ready
 * index), the scheduled index, a stream's in-flight set, the purge index (terminal and retained),
 * or none of them while its enqueue awaits commit. Durable effects accumulate in the current
 * {@link Turn}.
 */
public final class Engine {
  /** The most jobs a stream with prefetch 0 (unlimited) may hold, whatever the server-wide limit. */
  static final int UNLIMITED_PREFETCH_CAP = 10_000;

  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);
  private final EngineConfig config;
  /** Every job the server holds; replaced once, while empty, by a map sized for recovery. */
  private Map<JobId, Job> jobs = new HashMap<>();
  private final ReadyIndex ready = new ReadyIndex();
  private final DeadlineIndex scheduled = new DeadlineIndex(Job::readyAtMs);
  private final DeadlineIndex retained = new DeadlineIndex(Job::purgeAtMs);
  private final Dispatcher dispatcher;
  private final BudgetBook budgets;
  private final CronAdmin crons;
  private final NameCache names = new NameCache();
  private final UniqueClaims claims =
      new UniqueClaims(m -> this.turn.enqueueWrite(m), m -> this.turn.write(m));
  private final OpenBatches openBatches =
      new OpenBatches(m -> this.turn.enqueueWrite(m), m -> this.turn.write(m));
  private final BatchExpressions batchExpressions;
  /** Jobs held per queue name, so that listing queues never scans jobs. */
  private final Map<String, Integer> queueSizes = new HashMap<>();
  private Turn turn = new Turn();
  private long cachedPayloadBytes;
  private long nextReapAtMs;
  private long nextSessionId = 1;
  /** What prefetch 0 means for one stream: see {@link #unlimitedPrefetchCap(int)}. */
  private final int unlimitedPrefetchCap;

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
    this.dispatcher = new Dispatcher(ready, config.globalInFlightLimit());
    this.unlimitedPrefetchCap = unlimitedPrefetchCap(config.globalInFlightLimit());
    this.budgets = new BudgetBook(config.maxBudgets(), new BudgetBook.Candidates() {
      @Override
      public void offer(Job job) {
        ready.add(job);
        dispatcher.readyAdded();
      }

      @Override
      public void withdraw(Job job) {
        ready.remove(job);
      }
    });
    this.crons = new CronAdmin(new CronAdmin.Host() {
      @Override
      public void write(Mutation mutation) {
        turn.write(mutation);
      }

      @Override
      public void enqueue(NewJob job, long nowMs) {
        Engine.this.enqueue(List.of(job), false, nowMs);
      }

      @Override
      public void writeFired(Mutation mutation) {
        turn.enqueueWrite(mutation);
      }
    }, budgets, cronDefaultZone, jobIds);
  }

  /** Changes one queued job's bindings; answers the job without payload. */
  public JobSnapshot changeBindings(JobId id, BindingChange change, long nowMs) {
    Job job = visible(id, nowMs, "job not found");
    rebinder().changeOne(job, change, nowMs);
    return job.snapshot(false);
  }

  /** Changes the bindings of every queued job the filter selects. */
  public BulkRebindResult changeBindingsWhere(JobFilter filter, BindingChange change,
      long nowMs) {
    return changeBindingsWhere(filter, null, change, nowMs);
  }

  /** Like {@link #changeBindingsWhere(JobFilter, BindingChange, long)}, narrowed to {@code ids}. */
  public BulkRebindResult changeBindingsWhere(JobFilter filter, Set<JobId> ids,
      BindingChange change, long nowMs) {
    Collection<Job> candidates = ids == null ? jobs.values()
        : ids.stream().map(jobs::get).filter(Objects::nonNull).toList();
    return rebinder().changeAll(candidates, filter, change, nowMs);
  }

  private JobRebinder rebinder() {
    return new JobRebinder(budgets, new JobRebinder.Hooks() {
      @Override
      public void detach(Job job, long nowMs) {
        // A scheduled job's place does not depend on its bindings: it stays where it is.
        if (job.status() == JobStatus.READY) {
          unindex(job, nowMs);
        }
      }

      @Override
      public void attach(Job job, long nowMs) {
        if (!job.pending() && job.status() == JobStatus.READY) {
          makeReady(job, nowMs);
        }
      }

      @Override
      public void write(Mutation mutation) {
        turn.write(mutation);
      }
    });
  }

  /** Budget administration: the {@code /budgets} endpoints. */
  public BudgetAdmin budgetAdmin() {
    return new BudgetAdmin(budgets, crons, this::write);
  }

  /** Cron administration and firing: the {@code /crons} endpoints. */
  public CronAdmin crons() {
    return crons;
  }

  BudgetBook budgets() {
    return budgets;
  }

  void write(Mutation mutation) {
    turn.write(mutation);
  }

  public EngineConfig config() {
    return config;
  }

  /** Loads a stored budget at start-up, bucket full; call before {@link #recover}. */
  public void recoverBudget(BudgetView stored, long nowMs) {
    budgets.restore(stored, nowMs);
  }

  /**
   * Sizes the job map for about {@code expectedJobs} before recovery fills it, so that a million
   * stored jobs are not rehashed twenty times over.
   */
  public void expectRecoveredJobs(long expectedJobs) {
    if (jobs.isEmpty() && expectedJobs > 0) {
      // Only a hint: the estimate counts rewritten records again until compaction, so it is
      // capped (16M jobs, a 64 MiB table); beyond that the map grows as usual.
      jobs = new HashMap<>((int) Math.min(1 << 24, expectedJobs * 4 / 3 + 16));
    }
  }

  /** Loads stored jobs at start-up; jobs that were in flight come back ready. */
  public void recover(JobSnapshot stored, long nowMs) {
    Job job = Job.fromSnapshot(stored, names.canonical(stored.type()),
        names.canonical(stored.queue()));
    job.indexed(IndexEntry.of(stored));
    remember(job);
    if (job.status().isTerminal()) {
      retained.add(job);
      return;
    }
    if (!job.budgets().isEmpty()) {
      dropUnknownBudgets(job);
    }
    budgets.track(job);
    index(job, nowMs);
  }

  private void dropUnknownBudgets(Job job) {
    List<Binding> known = job.budgets().stream().filter(b -> budgets.get(b.key()) != null).toList();
    if (known.size() != job.budgets().size()) {
      // Deleting a budget is refused while unfinished jobs use it, so only a damaged store gets
      // here; a binding the server cannot enforce must not hold the job forever.
      LOG.warn("job {} is bound to budgets that do not exist; dropping those bindings", job.id());
      job.budgets(known);
    }
  }

  /** Loads a stored open-batch pointer and that job's payload at start-up, after the jobs. */
  public void recoverOpenBatch(String key, JobId jobId, byte[] payload) {
    Job job = payload == null ? null : jobs.get(jobId);
    if (openBatches.recover(key, job)) {
      pinPayload(job, payload);
    }
  }

  /** Loads a stored unique-key claim at start-up; call after every job is recovered. */
  public void recoverClaim(String key, JobId holder) {
    claims.recover(key, jobs.get(holder));
  }

  /** Ends start-up: jobs that were in flight at a crash retake their free unique keys. */
  public void recoverRequeuedClaims() {
    List<Job> unique = new ArrayList<>();
    for (Job job : jobs.values()) {
      if (job.unique() != null) {
        unique.add(job);
      }
    }
    unique.sort(Comparator.comparing(Job::id));
    claims.retakeFreeOnRecovery(unique);
  }

  // ---- enqueue -------------------------------------------------------------------------------

  /** Stores new jobs; they become dispatchable once this turn is durable. */
  public List<JobSnapshot> enqueue(List<NewJob> requests, long nowMs) {
    return enqueue(requests, false, nowMs);
  }

  public List<JobSnapshot> enqueue(List<NewJob> requests, boolean bulk, long nowMs) {
    return enqueueAll(requests, bulk, nowMs).stream().map(Enqueued::job).toList();
  }

  /**
   * Stores new jobs, all or none, in request order. Every job's budget bindings are resolved
   * first, duplicates included (BUDGETS.md §4.2), and a failure names the job by index when
   * {@code bulk}. A unique job whose key is held by a job its scope covers (one created earlier in
   * the same request included) is answered by that job instead (API.md §4.5).
   */
  public List<Enqueued> enqueueAll(List<NewJob> requests, boolean bulk, long nowMs) {
    BindingPlan plan = budgets.newPlan();
    List<List<Binding>> bindings = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      try {
        bindings.add(plan.resolve(requests.get(i).budgets()));
      } catch (SluiceException.Unprocessable e) {
        throw bulk ? new SluiceException.Unprocessable("jobs[" + i + "]: " + e.getMessage()) : e;
      }
    }
    BatchPlan batching = BatchPlan.of(requests, openBatches, batchExpressions, bulk, nowMs);
    for (Budget created : plan.apply(nowMs)) {
      turn.enqueueWrite(new Mutation.PutBudget(created.view()));
    }
    Job[] createdHere = new Job[requests.size()];
    List<Enqueued> answers = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      NewJob request = requests.get(i);
      BatchPlan.Target foldedInto = batching.foldTarget(i);
      if (foldedInto != null) {
        answers.add(new Enqueued(target(foldedInto, createdHere).snapshot(false), false, true));
        continue;
      }
      // A job created earlier in this request already holds the claim, and is covered by every
      // scope (it is scheduled or ready), so the claims alone decide.
      Job holder = request.unique() == null ? null : claims.duplicated(request.unique(), nowMs);
      if (holder != null) {
        answers.add(new Enqueued(holder.snapshot(false), true, false));
        continue;
      }
      Job job = enqueueOne(request, bindings.get(i), nowMs);
      createdHere[i] = job;
      if (batching.opens(i)) {
        pinPayload(job, request.payload());
        openBatches.open(job);
      }
      answers.add(new Enqueued(job.snapshot(false), false, false));
    }
    batching.foldedPayloads().forEach((foldedInto, payload) -> {
      Job job = target(foldedInto, createdHere);
      pinPayload(job, payload);
      turn.enqueueWrite(new Mutation.PutPayload(job.id(), payload));
    });
    return answers;
  }

  private static Job target(BatchPlan.Target target, Job[] createdHere) {
    return target instanceof BatchPlan.OpenJob open
        ? open.job()
        : createdHere[((BatchPlan.CreatedHere) target).index()];
  }

  private Job enqueueOne(NewJob request, List<Binding> bindings, long nowMs) {
    long readyAtMs = request.readyAtMs() == null ? nowMs : request.readyAtMs();
    JobStatus status = readyAtMs > nowMs ? JobStatus.SCHEDULED : JobStatus.READY;
    Job job =
        new Job(request.id(), names.canonical(request.type()), names.canonical(request.queue()),
            request.priority(), status, readyAtMs);
    job.retryLimit(request.retryLimit());
    job.backoff(request.backoff());
    job.retention(request.retention());
    job.budgets(bindings);
    job.unique(request.unique());
    job.batch(request.batch());
    job.pending(true);
    remember(job);
    if (job.unique() != null) {
      claims.take(job);
    }
    budgets.track(job);
    turn.enqueueWrite(JobWrites.put(job));
    turn.enqueueWrite(new Mutation.PutPayload(job.id(), request.payload()));
    cachePayload(job, request.payload());
    turn.indexAfterCommit(job);
    return job;
  }

  /** Called once the turn that created these jobs is durable. */
  public void committed(List<Job> newJobs, long nowMs) {
    for (Job job : newJobs) {
      job.pending(false);
      if (jobs.get(job.id()) == job && job.holder() == null && !job.status().isTerminal()) {
        index(job, nowMs);
      }
    }
  }

  private void index(Job job, long nowMs) {
    if (job.readyAtMs() > nowMs) {
      job.status(JobStatus.SCHEDULED);
      scheduled.add(job);
    } else {
      makeReady(job, nowMs);
    }
  }

  /** A job becomes runnable: unbound ones go straight to the ready index, bound ones park. */
  private void makeReady(Job job, long nowMs) {
    job.status(JobStatus.READY);
    if (job.budgets().isEmpty()) {
      ready.add(job);
      dispatcher.readyAdded();
    } else {
      budgets.park(job, nowMs);
    }
  }

  private void cachePayload(Job job, byte[] payload) {
    if (cachedPayloadBytes + payload.length <= config.payloadCacheBytes()) {
      job.payload(payload);
      cachedPayloadBytes += payload.length;
    }
  }

  /** Keeps the payload in memory whatever the cache holds: an open batch folds from it. */
  private void pinPayload(Job job, byte[] payload) {
    byte[] previous = job.payload();
    cachedPayloadBytes += payload.length - (previous == null ? 0 : previous.length);
    job.payload(payload);
  }

  private byte[] takePayload(Job job) {
    byte[] payload = job.payload();
    if (payload != null) {
      job.payload(null);
      cachedPayloadBytes -= payload.length;
    }
    return payload;
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** The visible job with its payload if cached (else the caller reads it from the store). */
  public JobSnapshot get(JobId id, long nowMs) {
    return visible(id, nowMs, "job not found").snapshot(true);
  }

  private Job visible(JobId id, long nowMs, String notFoundMessage) {
    Job job = id == null ? null : jobs.get(id);
    if (job == null || job.isPurgedAt(nowMs)) {
      throw new SluiceException.NotFound(notFoundMessage);
    }
    return job;
  }

  public int jobCount() {
    return jobs.size();
  }

  /** Job id → dispatch time of every job in flight; safe to read from any thread. */
  public Map<JobId, Long> inFlightView() {
    return dispatcher.inFlightView();
  }

  public int inFlightCount() {
    return dispatcher.inFlightCount();
  }

  // ---- take streams --------------------------------------------------------------------------

  /**
   * The most jobs a stream with prefetch 0 holds: half the server-wide in-flight limit, at most
   * {@value #UNLIMITED_PREFETCH_CAP} (also when there is no server-wide limit). A worker that
   * stops reading keeps what was written to it; the cap leaves the other half of the slots to
   * every other worker (docs/decisions.md).
   */
  public static int unlimitedPrefetchCap(int globalInFlightLimit) {
    return globalInFlightLimit == 0
        ? UNLIMITED_PREFETCH_CAP
        : Math.max(1, Math.min(UNLIMITED_PREFETCH_CAP, globalInFlightLimit / 2));
  }

  /**
   * Opens a take stream. {@code prefetch} 0 (unlimited) is capped (see
   * {@link #unlimitedPrefetchCap(int)}), so that one worker that stops reading cannot take every
   * in-flight slot.
   */
  public WorkerSession openSession(Set<String> queues, int prefetch, JobSink sink) {
    WorkerSession session = new WorkerSession(nextSessionId++, queues,
        prefetch == 0 ? unlimitedPrefetchCap : prefetch, sink);
    dispatcher.open(session);
    return session;
  }

  /**
   * The stream ended: every job it still holds goes back to ready, unchanged. Requeues are rare,
   * so each is written, which keeps {@code dequeued_at} across a restart.
   */
  public void closeSession(WorkerSession session, long nowMs) {
    for (Job job : dispatcher.close(session)) {
      budgets.release(job, nowMs);
      makeReady(job, nowMs);
      claims.retakeIfFree(job);
      turn.write(JobWrites.put(job));
    }
  }

  /** The transport wrote the session's last delivery (see {@link JobSink#pacedByWrites}). */
  public void sessionWritten(WorkerSession session) {
    dispatcher.written(session);
  }

  /** Ends every stream, requeueing their jobs (graceful shutdown). */
  public void closeAllSessions(long nowMs) {
    for (WorkerSession session : dispatcher.sessions()) {
      closeSession(session, nowMs);
    }
  }

  /** Hands every dispatchable job to a stream with a free slot. */
  public void dispatch(long nowMs) {
    dispatcher.dispatch(
        (job, queues) -> job.budgets().isEmpty()
            ? BudgetBook.Admission.ADMIT
            : budgets.admit(job, queues, nowMs),
        (job, session) -> {
          job.status(JobStatus.IN_FLIGHT);
          job.dequeuedAtMs(nowMs);
          claims.dispatched(job);
          openBatches.dispatched(job);
          return job.snapshot(false).withPayload(takePayload(job));
        });
  }

  // ---- acknowledgements ----------------------------------------------------------------------

  public void complete(JobId id, long nowMs) {
    Job job = jobs.get(id);
    if (job == null || job.status() != JobStatus.IN_FLIGHT) {
      throw new SluiceException.NotFound("job not found in in-flight set");
    }
    complete(job, nowMs);
  }

  private void complete(Job job, long nowMs) {
    leaveFlight(job, nowMs);
    long retentionMs = effective(job.retention() == null ? null : job.retention().completedMs(),
        config.defaultCompletedRetentionMs());
    finish(job, JobStatus.COMPLETED, retentionMs, nowMs);
  }

  /** Completes every id that is in flight; returns those that were not, in request order. */
  public List<String> completeAll(List<String> ids, long nowMs) {
    List<String> notFound = new ArrayList<>();
    for (String raw : ids) {
      JobId id = JobId.parseOrNull(raw);
      Job job = id == null ? null : jobs.get(id);
      if (job == null || job.status() != JobStatus.IN_FLIGHT) {
        notFound.add(raw);
      } else {
        complete(job, nowMs);
      }
    }
    return notFound;
  }

  public JobSnapshot fail(JobId id, FailureReport report, long nowMs) {
    Job job = jobs.get(id);
    if (job == null || job.status() != JobStatus.IN_FLIGHT) {
      throw new SluiceException.NotFound("job not found in in-flight set");
    }
    leaveFlight(job, nowMs);
    int attempts = job.attempts() + 1;
    job.attempts(attempts);
    job.failedAtMs(nowMs);
    turn.write(new Mutation.PutError(job.id(), new ErrorRecord(attempts, report.message(),
        report.errorType(), report.backtrace(), job.dequeuedAtMs(), nowMs)));
    int retryLimit = job.retryLimit() != null ? job.retryLimit() : config.defaultRetryLimit();
    if (report.kill() || (report.retryAtMs() == null && attempts > retryLimit)) {
      long retentionMs = effective(job.retention() == null ? null : job.retention().deadMs(),
          config.defaultDeadRetentionMs());
      finish(job, JobStatus.DEAD, retentionMs, nowMs);
      return job.snapshot(false);
    }
    long retryAtMs;
    if (report.retryAtMs() != null) {
      retryAtMs = report.retryAtMs();
    } else {
      BackoffPolicy backoff = job.backoff() != null ? job.backoff() : config.defaultBackoff();
      retryAtMs = saturatingAdd(nowMs, backoff.delayMs(attempts, report.jitterUniform()));
    }
    job.readyAtMs(retryAtMs);
    // Always scheduled first (API.md §4.3, §8.7): a retry_at that is already due is promoted by
    // this same turn's runDue, so the job is dispatchable at once.
    job.status(JobStatus.SCHEDULED);
    scheduled.add(job);
    claims.retakeIfFree(job);
    JobSnapshot snapshot = job.snapshot(false);
    turn.write(JobWrites.put(job, snapshot));
    return snapshot;
  }

  private void finish(Job job, JobStatus terminal, long retentionMs, long nowMs) {
    takePayload(job);
    budgets.untrack(job);
    job.status(terminal);
    claims.finished(job);
    if (terminal == JobStatus.COMPLETED) {
      job.completedAtMs(nowMs);
    }
    if (retentionMs == 0) {
      forget(job);
      return;
    }
    job.purgeAtMs(saturatingAdd(nowMs, retentionMs));
    retained.add(job);
    turn.write(JobWrites.put(job));
  }

  /** The job stops being in flight: its stream slot and its concurrency tokens come back. */
  private void leaveFlight(Job job, long nowMs) {
    dispatcher.release(job);
    budgets.release(job, nowMs);
  }

  /** Adds a job to the live set. */
  private void remember(Job job) {
    jobs.put(job.id(), job);
    queueSizes.merge(job.queue(), 1, Integer::sum);
  }

  /** Removes a job for good: from the live set and, with its payload and errors, from disk. */
  private void forget(Job job) {
    takePayload(job);
    claims.forgotten(job);
    openBatches.forgotten(job);
    jobs.remove(job.id());
    queueSizes.computeIfPresent(job.queue(), (queue, n) -> n == 1 ? null : n - 1);
    turn.write(JobWrites.delete(job));
  }

  // ---- patches -------------------------------------------------------------------------------

  /** Applies a merge patch to one job; answers it without payload. */
  public JobSnapshot patch(JobId id, JobPatch patch, long nowMs) {
    Job job = visible(id, nowMs, "job not found");
    if (job.status().isTerminal()) {
      throw new SluiceException.Unprocessable("cannot patch job " + job.id() + " in "
          + job.status().wireName() + " status");
    }
    applyPatch(job, patch, nowMs);
    return job.snapshot(false);
  }

  /** Applies a merge patch to every non-terminal job the filter (and {@code ids}) select. */
  public int patchWhere(JobFilter filter, Set<JobId> ids, JobPatch patch, long nowMs) {
    int patched = 0;
    for (Job job : selected(filter, ids, nowMs)) {
      if (!job.status().isTerminal()) {
        applyPatch(job, patch, nowMs);
        patched++;
      }
    }
    return patched;
  }

  /** Deletes every job the filter (and {@code ids}) select, in any status. */
  public int deleteWhere(JobFilter filter, Set<JobId> ids, long nowMs) {
    List<Job> chosen = selected(filter, ids, nowMs);
    for (Job job : chosen) {
      detach(job, nowMs);
      forget(job);
    }
    return chosen.size();
  }

  /** Jobs matching the filter; {@code ids}, when given, come from a payload query and narrow it. */
  private List<Job> selected(JobFilter filter, Set<JobId> ids, long nowMs) {
    List<Job> chosen = new ArrayList<>();
    if (ids != null) {
      for (JobId id : ids) {
        Job job = jobs.get(id);
        if (job != null && filter.matches(job, nowMs)) {
          chosen.add(job);
        }
      }
      return chosen;
    }
    for (Job job : jobs.values()) {
      if (filter.matches(job, nowMs)) {
        chosen.add(job);
      }
    }
    return chosen;
  }

  /**
   * Changes a non-terminal job; a queue, priority or ready_at change takes a queued job off its
   * index and puts it back, so it is re-positioned (in its budgets' queues too).
   */
  private void applyPatch(Job job, JobPatch patch, long nowMs) {
    // A job whose enqueue is not durable yet is in no index; its commit indexes it as patched.
    boolean queued = !job.pending()
        && (job.status() == JobStatus.READY || job.status() == JobStatus.SCHEDULED);
    boolean moves = patch.queue() != null || patch.priority() != null || patch.setReadyAt();
    if (queued && moves) {
      unindex(job, nowMs);
    }
    if (patch.queue() != null && !patch.queue().equals(job.queue())) {
      queueSizes.computeIfPresent(job.queue(), (queue, n) -> n == 1 ? null : n - 1);
      job.queue(names.canonical(patch.queue()));
      queueSizes.merge(job.queue(), 1, Integer::sum);
    }
    if (patch.priority() != null) {
      job.priority(patch.priority());
    }
    if (patch.setReadyAt()) {
      if (patch.readyAtMs() != null) {
        job.readyAtMs(patch.readyAtMs());
      } else if (job.status() == JobStatus.SCHEDULED) {
        job.readyAtMs(nowMs);
      }
    }
    if (patch.setRetryLimit()) {
      job.retryLimit(patch.retryLimit());
    }
    if (patch.setBackoff()) {
      job.backoff(patch.backoff());
    }
    job.retention(patch.mergeRetention(job.retention()));
    if (queued && moves) {
      index(job, nowMs);
    }
    turn.write(JobWrites.put(job));
  }

  /** Takes a queued job off the ready or scheduled index (or its budgets' waiting queues). */
  private void unindex(Job job, long nowMs) {
    if (job.status() == JobStatus.SCHEDULED) {
      scheduled.remove(job);
    } else if (job.budgets().isEmpty()) {
      ready.remove(job);
    } else {
      budgets.unpark(job, nowMs);
    }
  }

  // ---- deletion ------------------------------------------------------------------------------

  /**
   * Deletes a job in any status (API.md §8.14): an in-flight job's stream slot and budget tokens
   * are released, and its worker's later ack finds nothing.
   */
  public void delete(JobId id, long nowMs) {
    Job job = visible(id, nowMs, "job not found");
    detach(job, nowMs);
    forget(job);
  }

  /** Deletes every cron group, then every job, then every budget (API.md §10). */
  public void reset(long nowMs) {
    crons.deleteAll();
    for (Job job : List.copyOf(jobs.values())) {
      detach(job, nowMs);
      forget(job);
    }
    budgetAdmin().deleteAll();
  }

  /** Takes a job out of whatever index, stream or budget holds it. */
  private void detach(Job job, long nowMs) {
    switch (job.status()) {
      case READY, SCHEDULED -> unindex(job, nowMs);
      case IN_FLIGHT -> leaveFlight(job, nowMs);
      case COMPLETED, DEAD -> retained.remove(job);
    }
    if (!job.status().isTerminal()) {
      budgets.untrack(job);
    }
  }

  /** Queue names of every stored job, in byte order (API.md §8.8). */
  public List<String> queueNames() {
    return queueSizes.keySet().stream().sorted(Names.BYTE_ORDER).toList();
  }

  private static long effective(Long override, long serverDefault) {
    return override != null ? override : serverDefault;
  }

  private static long saturatingAdd(long a, long b) {
    long sum = a + b;
    return sum < a ? Long.MAX_VALUE : sum;
  }

  // ---- time ----------------------------------------------------------------------------------

  /** The earliest instant at which {@link #runDue} has work, or {@link Long#MAX_VALUE}. */
  public long nextDeadlineMs() {
    long next = Math.min(scheduled.earliestMs(), budgets.nextWakeMs());
    next = Math.min(next, crons.nextFireMs());
    if (retained.size() > 0) {
      next = Math.min(next, Math.max(nextReapAtMs, retained.earliestMs()));
    }
    return next;
  }

  /** Fires due cron entries, promotes due scheduled jobs and reaps expired terminal jobs. */
  public void runDue(long nowMs) {
    crons.fireDue(nowMs);
    for (Job job : scheduled.pollDue(nowMs, config.schedulerBatchSize())) {
      makeReady(job, nowMs);
    }
    budgets.runDue(nowMs);
    if (nowMs >= nextReapAtMs && retained.earliestMs() <= nowMs) {
      reap(nowMs);
    }
  }

  private void reap(long nowMs) {
    List<Job> expired = retained.pollDue(nowMs, 1000);
    for (Job job : expired) {
      forget(job);
    }
    // A full batch means more may be due: reap again next turn rather than after the interval.
    nextReapAtMs = expired.size() == 1000 ? nowMs : nowMs + config.reaperIntervalMs();
  }

  // ---- turns ---------------------------------------------------------------------------------

  /** Ends the current turn, returning its durable effects. */
  public Turn takeTurn() {
    Turn finished = turn;
    finished.departures(dispatcher.takeDepartures());
    turn = new Turn();
    return finished;
  }

  /** Called once a turn is durable; safe from the commit thread (touches only the view). */
  public void durable(Turn turn) {
    if (!turn.departures().isEmpty()) {
      dispatcher.forget(turn.departures());
    }
  }
}

package io.sluice.engine.dispatch;

import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.budget.BudgetBook.Admission;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Decides which ready job goes to which take stream. It owns the ready index (unbound ready jobs
 * and the budget heads that can pay) and is the only class that changes it; for a bound job it
 * asks the budget book whether the job heads its budgets for the worker's queues and whether they
 * can pay, and charges them when it dispatches. Streams with free prefetch slots get one job per
 * round, and never past the server-wide limit. A pass starts with an awake stream (one whose
 * worker reported a success within the last {@link #AWAKE_MS}) unless it holds more than one job
 * above the stream holding fewest, and otherwise with that one: short jobs keep going to one
 * worker that is awake rather than waking each idle one in turn, and long ones spread over the
 * workers by load.
 *
 * <p>Owned by the engine thread. Work is done only when something that could enable a dispatch
 * happened since the last pass (a ready job, an offer, a returned slot, a new or writable stream,
 * a bound job leaving its budgets' waiting queues).
 */
public final class Dispatcher {
  /**
   * How recently a stream's worker must have reported a success for a pass to start with it. That
   * worker has just been running, so its process and the caches it runs on are likely warm;
   * waking another idle worker costs that worker's wake-up and, in a bench of short jobs at 500 a
   * second, a fifth more client CPU.
   */
  public static final long AWAKE_MS = 10;

  /** Moves a dispatched job into flight and returns what its stream receives. */
  @FunctionalInterface
  public interface Handover {
    JobSnapshot handOver(Job job, long nowMs);
  }

  private final ReadyIndex ready = new ReadyIndex();
  private final BudgetBook budgets;
  private final int globalInFlightLimit;
  private final List<WorkerSession> sessions = new ArrayList<>();
  /** The stream holding each job in flight. */
  private final Map<Job, WorkerSession> holders = new HashMap<>();
  /**
   * Dispatch time of every job in flight, readable from any thread: the query API overlays it on
   * stored records, since dispatch itself is not written to disk.
   */
  private final Map<JobId, Long> inFlightView;
  /**
   * Jobs that left flight this turn. They leave the view only once the turn that recorded their
   * new state is durable, so a reader never sees them as neither in flight nor as stored.
   */
  private List<Departure> departed = new ArrayList<>();
  /** Streams whose delivery waits for a commit (X4), since the last turn was taken. */
  private List<AwaitingCommit> awaitingCommit = new ArrayList<>();
  /** Dispatch passes made so far; names the pass whose delivery a stream holds back. */
  private long passes;
  /** Successes reported so far; stamps which stream's worker reported one last. */
  private long successes;
  private boolean dirty;

  /** A job that left flight: which stream held it, since when. */
  public record Departure(Job job, WorkerSession session, long dequeuedAtMs) {}

  /**
   * A stream whose delivery from dispatch pass {@code pass} holds jobs charged to durable
   * budgets (X4): it goes out once the turn storing their token state is durable.
   */
  public record AwaitingCommit(WorkerSession session, long pass) {}

  /**
   * @param globalInFlightLimit the most jobs in flight across all streams; 0 means unlimited
   * @param inFlightView the map to keep the in-flight view in; it outlives this dispatcher when a
   *     failed commit rebuilds the engine state
   */
  public Dispatcher(BudgetBook budgets, int globalInFlightLimit, Map<JobId, Long> inFlightView) {
    this.budgets = budgets;
    this.globalInFlightLimit = globalInFlightLimit;
    this.inFlightView = inFlightView;
  }

  // ---- ready jobs ----------------------------------------------------------------------------

  /** The job became ready: an unbound one is a candidate at once, a bound one parks. */
  public void enter(Job job, long nowMs) {
    if (job.budgets().isEmpty()) {
      ready.add(job);
      dirty = true;
    } else {
      budgets.park(job, nowMs);
    }
  }

  /** A ready job leaves dispatch (patched, rebound, deleted) before a stream took it. */
  public void leave(Job job, long nowMs) {
    ready.remove(job);
    if (!job.budgets().isEmpty()) {
      budgets.unpark(job, nowMs);
      // It may have been the head that made a candidate of its budget skip a stream.
      dirty = true;
    }
  }

  // ---- streams -------------------------------------------------------------------------------

  public void open(WorkerSession session) {
    sessions.add(session);
    dirty = true;
  }

  /**
   * Closes the stream and returns the jobs it still held; the caller takes each out of flight
   * ({@link #release}) and requeues it.
   */
  public List<Job> close(WorkerSession session) {
    if (session.closed()) {
      return List.of();
    }
    session.close();
    sessions.remove(session);
    return new ArrayList<>(session.inFlight());
  }

  /** A write-paced stream wrote its last delivery: it may be dispatched to again. */
  public void written(WorkerSession session) {
    session.written();
    dirty = true;
  }

  /** The job leaves flight (failed, deleted or requeued): its slot is free again. */
  public void release(Job job) {
    releaseSlot(job);
  }

  /**
   * The job succeeded: its slot is free again, and its stream counts as awake. Failures do not:
   * a broken worker that fails every job at once would otherwise draw the work to itself.
   */
  public void succeeded(Job job, long nowMs) {
    WorkerSession session = releaseSlot(job);
    if (session != null) {
      session.succeeded(++successes, nowMs);
    }
  }

  private WorkerSession releaseSlot(Job job) {
    WorkerSession session = holders.remove(job);
    if (session == null || !session.release(job)) {
      return null;
    }
    departed.add(new Departure(job, session, job.dequeuedAtMs()));
    dirty = true;
    return session;
  }

  /**
   * Takes over an open stream from the engine state a failed commit discarded. The stream keeps
   * what it delivered; it holds no job here until {@link #restore} gives its jobs back.
   */
  public void adopt(WorkerSession session) {
    session.forgetHeld();
    // Its stamp came from the discarded dispatcher; later successes must still stamp higher.
    successes = Math.max(successes, session.lastSuccess());
    sessions.add(session);
    dirty = true;
  }

  /**
   * Puts an adopted stream's job back in flight in it, without delivering it again: the worker
   * still has it. The caller takes the job out of every other index first.
   */
  public void restore(Job job, WorkerSession session) {
    session.restore(job);
    holders.put(job, session);
    inFlightView.put(job.id(), job.dequeuedAtMs());
  }

  /**
   * Dispatches every job that can go now. A bound candidate must be admitted by its budgets: a
   * dropped one leaves the ready index, a skipped one stays for other workers, and either way the
   * next best is tried.
   */
  public void dispatch(long nowMs, Handover handover) {
    if (!passDue()) {
      return;
    }
    dirty = false;
    long pass = ++passes;
    int n = sessions.size();
    collectOffers();
    int start = firstPick(nowMs);
    boolean progress = true;
    while (progress && underGlobalLimit() && ready.size() > 0) {
      progress = false;
      for (int i = 0; i < n && underGlobalLimit(); i++) {
        WorkerSession session = sessions.get((start + i) % n);
        if (!session.wantsJobs()) {
          continue;
        }
        Job job = admissible(session, nowMs);
        if (job == null) {
          continue;
        }
        ready.remove(job);
        boolean awaitsCommit = false;
        if (!job.budgets().isEmpty()) {
          awaitsCommit = budgets.charge(job, nowMs);
          collectOffers();
        }
        holders.put(job, session);
        session.hold(job, handover.handOver(job, nowMs), awaitsCommit);
        inFlightView.put(job.id(), job.dequeuedAtMs());
        progress = true;
      }
    }
    for (int i = 0; i < sessions.size(); i++) {
      WorkerSession session = sessions.get(i);
      if (session.holdsUncommitted()) {
        // The token state these jobs spent must be durable before a worker can run them.
        session.awaitCommit(pass);
        awaitingCommit.add(new AwaitingCommit(session, pass));
      } else {
        session.flush();
      }
    }
  }

  /** True when the last pass left deliveries that wait for a commit ({@link #takeAwaitingCommit}). */
  public boolean awaitsCommit() {
    return !awaitingCommit.isEmpty();
  }

  /** Hands over the streams whose delivery waits for the commit of the turn now being taken. */
  public List<AwaitingCommit> takeAwaitingCommit() {
    if (awaitingCommit.isEmpty()) {
      return List.of();
    }
    List<AwaitingCommit> taken = awaitingCommit;
    awaitingCommit = new ArrayList<>();
    return taken;
  }

  /**
   * The turn these deliveries waited for is durable: each goes to its stream, without the jobs
   * that left the stream meanwhile, and the stream may take jobs again.
   */
  public void committed(List<AwaitingCommit> deliveries) {
    for (int i = 0; i < deliveries.size(); i++) {
      AwaitingCommit delivery = deliveries.get(i);
      if (delivery.session().commitDone(delivery.pass())) {
        dirty = true;
      }
    }
  }

  /**
   * The index of the stream a pass offers a job first, among those that want jobs and take a
   * queue with a candidate: the first opened of those whose worker reported a success within
   * {@link #AWAKE_MS}, so that one worker keeps the work rather than it passing between awake
   * ones, unless it holds more than one job above the stream holding fewest, so that an awake
   * worker does not pile up jobs while others idle; otherwise the one holding fewest, and of
   * those the one whose worker reported a success last.
   */
  private int firstPick(long nowMs) {
    int awake = -1;
    int fewest = -1;
    WorkerSession lightest = null;
    for (int i = 0; i < sessions.size(); i++) {
      WorkerSession session = sessions.get(i);
      if (!session.wantsJobs() || !ready.offersTo(session.queues())) {
        continue;
      }
      if (awake < 0 && session.succeededSince(nowMs - AWAKE_MS)) {
        awake = i;
      }
      if (lightest == null || session.holding() < lightest.holding()
          || (session.holding() == lightest.holding()
              && session.lastSuccess() > lightest.lastSuccess())) {
        lightest = session;
        fewest = i;
      }
    }
    if (awake >= 0 && sessions.get(awake).holding() <= lightest.holding() + 1) {
      return awake;
    }
    return Math.max(fewest, 0);
  }

  /** The best candidate the session may take now, or null. */
  private Job admissible(WorkerSession session, long nowMs) {
    Job job = ready.best(session.queues());
    while (job != null && !job.budgets().isEmpty()) {
      Admission admission = budgets.admission(job, session.queues(), nowMs);
      if (admission == Admission.ADMIT) {
        break;
      }
      Job next = ready.bestAfter(session.queues(), job);
      if (admission == Admission.DROP) {
        ready.remove(job);
      }
      job = next;
    }
    return job;
  }

  private void collectOffers() {
    List<Job> offers = budgets.takeOffers();
    for (int i = 0; i < offers.size(); i++) {
      ready.add(offers.get(i));
    }
  }

  private boolean underGlobalLimit() {
    return globalInFlightLimit == 0 || holders.size() < globalInFlightLimit;
  }

  // ---- what other rooms read ----------------------------------------------------------------

  /** True while a stream holds the job. */
  public boolean holds(Job job) {
    return holders.containsKey(job);
  }

  /**
   * Every job in flight with the stream holding it (a copy), in job id order: not in hash order,
   * so that a rollback walking it rebuilds the streams alike on every run.
   */
  public Map<Job, WorkerSession> holdings() {
    Map<Job, WorkerSession> held = new TreeMap<>(Comparator.comparing(Job::id));
    held.putAll(holders);
    return held;
  }

  /** Drops a job from the in-flight view whose departure will never be made durable. */
  public void forgetDeparture(Departure departure) {
    inFlightView.remove(departure.job().id(), departure.dequeuedAtMs());
  }

  /** The ready index in dispatch order; offers not collected yet are not in it. */
  public List<Job> readyInOrder() {
    return ready.inOrder();
  }

  /** Hands over this turn's departures (engine thread). */
  /**
   * True when a dispatch pass would have something to do: something changed what the streams
   * may take, or budget heads became able to pay, and there is a stream to take them.
   */
  public boolean passDue() {
    return (dirty || budgets.hasOffers()) && !sessions.isEmpty();
  }

  /** True when jobs left flight since the departures were last taken. */
  public boolean hasDepartures() {
    return !departed.isEmpty();
  }

  public List<Departure> takeDepartures() {
    if (departed.isEmpty()) {
      return List.of();
    }
    List<Departure> taken = departed;
    departed = new ArrayList<>();
    return taken;
  }

  public int inFlightCount() {
    return holders.size();
  }

  public List<WorkerSession> sessions() {
    return List.copyOf(sessions);
  }
}

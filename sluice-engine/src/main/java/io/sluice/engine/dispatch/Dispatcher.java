package io.sluice.engine.dispatch;

import io.sluice.engine.budget.BudgetBook.Admission;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.function.BiFunction;
import java.util.Set;

/**
 * Matches ready jobs to take streams with free prefetch slots, one job per stream per round so
 * that streams share a scarce backlog fairly, and never past the server-wide in-flight limit.
 *
 * <p>Owned by the engine thread. Work is done only when something that could enable a dispatch
 * happened since the last pass (a ready job, a returned slot, a new or writable stream).
 */
public final class Dispatcher {
  private final ReadyIndex ready;
  private final int globalInFlightLimit;
  private final List<WorkerSession> sessions = new ArrayList<>();
  private int inFlightCount;
  /**
   * Dispatch time of every job in flight, readable from any thread: the query API overlays it on
   * stored records, since dispatch itself is not written to disk.
   */
  private final Map<JobId, Long> inFlightView = new ConcurrentHashMap<>();
  /**
   * Jobs that left flight this turn. They leave the view only once the turn that recorded their
   * new state is durable, so a reader never sees them as neither in flight nor as stored.
   */
  private List<Map.Entry<JobId, Long>> departed = new ArrayList<>();
  private int rotation;
  private boolean dirty;

  /** @param globalInFlightLimit the most jobs in flight across all streams; 0 means unlimited */
  public Dispatcher(ReadyIndex ready, int globalInFlightLimit) {
    this.ready = ready;
    this.globalInFlightLimit = globalInFlightLimit;
  }

  public void open(WorkerSession session) {
    sessions.add(session);
    dirty = true;
  }

  /** Closes the stream and returns the jobs it still held, for the caller to requeue. */
  public List<Job> close(WorkerSession session) {
    if (session.closed()) {
      return List.of();
    }
    session.close();
    sessions.remove(session);
    List<Job> held = new ArrayList<>(session.inFlight());
    for (Job job : held) {
      release(job);
    }
    return held;
  }

  /** A write-paced stream wrote its last delivery: it may be dispatched to again. */
  public void written(WorkerSession session) {
    session.written();
    dirty = true;
  }

  /** A job entered the ready index. */
  public void readyAdded() {
    dirty = true;
  }

  /** The job leaves flight (finished, failed, deleted or requeued): its slot is free again. */
  public void release(Job job) {
    if (job.holder() instanceof WorkerSession session && session.release(job)) {
      inFlightCount--;
      departed.add(Map.entry(job.id(), job.dequeuedAtMs()));
      dirty = true;
    }
    job.holder(null);
  }

  /** Has the last word on a job for a worker's queue set: its budgets must pay. */
  @FunctionalInterface
  public interface Admitter {
    Admission admit(Job job, Set<String> queues);
  }

  /**
   * Dispatches every job that can go now. The admitter has the last word on each candidate: a
   * dropped one has left the ready index, a skipped one stays for other workers, and either way
   * the next best is tried. {@code markInFlight} moves a job into flight and returns what its
   * stream receives.
   */
  public void dispatch(Admitter admitter,
      BiFunction<Job, WorkerSession, JobSnapshot> markInFlight) {
    if (!dirty || sessions.isEmpty()) {
      return;
    }
    dirty = false;
    int n = sessions.size();
    int start = Math.floorMod(rotation++, n);
    boolean progress = true;
    while (progress && underGlobalLimit() && ready.size() > 0) {
      progress = false;
      for (int i = 0; i < n && underGlobalLimit(); i++) {
        WorkerSession session = sessions.get((start + i) % n);
        if (!session.wantsJobs()) {
          continue;
        }
        Job job = ready.best(session.queues());
        while (job != null) {
          Admission admission = admitter.admit(job, session.queues());
          if (admission == Admission.ADMIT) {
            break;
          }
          if (admission == Admission.DROP) {
            ready.remove(job);
          }
          job = ready.bestAfter(session.queues(), job);
        }
        if (job == null) {
          continue;
        }
        ready.remove(job);
        job.holder(session);
        session.hold(job, markInFlight.apply(job, session));
        inFlightCount++;
        inFlightView.put(job.id(), job.dequeuedAtMs());
        progress = true;
      }
    }
    for (WorkerSession session : sessions) {
      session.flush();
    }
  }

  private boolean underGlobalLimit() {
    return globalInFlightLimit == 0 || inFlightCount < globalInFlightLimit;
  }

  /** Hands over this turn's departures (engine thread). */
  public List<Map.Entry<JobId, Long>> takeDepartures() {
    if (departed.isEmpty()) {
      return List.of();
    }
    List<Map.Entry<JobId, Long>> taken = departed;
    departed = new ArrayList<>();
    return taken;
  }

  /** Drops departures from the view once their turn is durable (any thread). */
  public void forget(List<Map.Entry<JobId, Long>> departures) {
    for (Map.Entry<JobId, Long> departure : departures) {
      // Conditional: a job dispatched again meanwhile keeps its new entry.
      inFlightView.remove(departure.getKey(), departure.getValue());
    }
  }

  public Map<JobId, Long> inFlightView() {
    return Collections.unmodifiableMap(inFlightView);
  }

  public int inFlightCount() {
    return inFlightCount;
  }

  public List<WorkerSession> sessions() {
    return List.copyOf(sessions);
  }
}

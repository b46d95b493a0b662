package io.sluice.engine;

import io.sluice.engine.dispatch.Dispatcher;
import io.sluice.engine.dispatch.JobSink;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import java.util.Set;

/**
 * Take streams (API.md §8.4): opening one, handing it jobs, and requeueing what it held when it
 * ends. Which job goes to which stream is the {@link Dispatcher}'s decision; this class says what
 * a dispatched job becomes.
 *
 * <p>Runs on the engine thread.
 */
final class TakeStreams implements Dispatcher.Handover {
  /** The most jobs a stream with prefetch 0 (unlimited) may hold, whatever the server-wide limit. */
  static final int UNLIMITED_PREFETCH_CAP = 10_000;

  private final JobTable jobs;
  private final Dispatcher dispatcher;
  private final Placement placement;
  private final UniqueClaims claims;
  private final OpenBatches openBatches;
  private final PayloadCache payloads;
  private final Writes writes;
  private final EngineObserver observer;
  /** What prefetch 0 means for one stream: see {@link #unlimitedPrefetchCap(int)}. */
  private final int unlimitedPrefetchCap;

  TakeStreams(EngineConfig config, JobTable jobs, Dispatcher dispatcher, Placement placement,
      UniqueClaims claims, OpenBatches openBatches, PayloadCache payloads, Writes writes,
      EngineObserver observer) {
    this.jobs = jobs;
    this.dispatcher = dispatcher;
    this.placement = placement;
    this.claims = claims;
    this.openBatches = openBatches;
    this.payloads = payloads;
    this.writes = writes;
    this.observer = observer;
    this.unlimitedPrefetchCap = unlimitedPrefetchCap(config.globalInFlightLimit());
  }

  /**
   * The most jobs a stream with prefetch 0 holds: half the server-wide in-flight limit, at most
   * {@value #UNLIMITED_PREFETCH_CAP} (also when there is no server-wide limit). A worker that
   * stops reading keeps what was written to it; the cap leaves the other half of the slots to
   * every other worker (docs/decisions.md).
   */
  static int unlimitedPrefetchCap(int globalInFlightLimit) {
    return globalInFlightLimit == 0
        ? UNLIMITED_PREFETCH_CAP
        : Math.max(1, Math.min(UNLIMITED_PREFETCH_CAP, globalInFlightLimit / 2));
  }

  WorkerSession open(long sessionId, Set<String> queues, int prefetch, JobSink sink) {
    WorkerSession session = new WorkerSession(sessionId, queues,
        prefetch == 0 ? unlimitedPrefetchCap : prefetch, sink);
    dispatcher.open(session);
    return session;
  }

  /**
   * The stream ended: every job it still holds goes back to ready, unchanged. Requeues are rare,
   * so each is written, which keeps {@code dequeued_at} across a restart.
   */
  void close(WorkerSession session, long nowMs) {
    for (Job job : dispatcher.close(session)) {
      placement.leaveFlight(job, nowMs);
      placement.makeReady(job, nowMs);
      claims.retakeIfFree(job);
      writes.write(JobWrites.put(job));
    }
  }

  /** Hands every dispatchable job to a stream with a free slot. */
  void dispatch(long nowMs) {
    dispatcher.dispatch(nowMs, this);
  }

  @Override
  public JobSnapshot handOver(Job job, long nowMs) {
    jobs.status(job, JobStatus.IN_FLIGHT);
    job.dequeuedAtMs(nowMs);
    job.forgetSettlements();
    observer.dispatched(job.queue(), Math.max(0, nowMs - job.readyAtMs()));
    claims.dispatched(job);
    openBatches.dispatched(job);
    return job.snapshotWith(payloads.take(job));
  }

  /** Puts a job back in flight in the stream that held it, as it was (see Dispatcher#restore). */
  void restore(Job job, WorkerSession session, long dequeuedAtMs, long nowMs) {
    placement.unplace(job, nowMs);
    jobs.status(job, JobStatus.IN_FLIGHT);
    job.dequeuedAtMs(dequeuedAtMs);
    job.forgetSettlements();
    claims.dispatched(job);
    openBatches.dispatched(job);
    payloads.take(job);
    dispatcher.restore(job, session);
  }
}

package io.sluice.engine.dispatch;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobSnapshot;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One take stream as the engine sees it: which queues it takes from, how many unfinished jobs it
 * may hold, and which jobs it holds now.
 *
 * <p>Owned by the engine thread. Every job in {@link #inFlight} has this session as its holder.
 */
public final class WorkerSession {
  private final long id;
  private final Set<String> queues;
  private final int prefetch;
  private final JobSink sink;
  private final Set<Job> inFlight = new LinkedHashSet<>();
  private final List<JobSnapshot> outbox = new ArrayList<>();
  private boolean writable = true;
  private boolean closed;

  /**
   * @param queues the queues to take from, or null for every queue
   * @param prefetch the most unfinished jobs held at once; 0 means unlimited
   */
  public WorkerSession(long id, Set<String> queues, int prefetch, JobSink sink) {
    this.id = id;
    this.queues = queues;
    this.prefetch = prefetch;
    this.sink = sink;
  }

  public long id() {
    return id;
  }

  public Set<String> queues() {
    return queues;
  }

  boolean wantsJobs() {
    return !closed && writable && (prefetch == 0 || inFlight.size() < prefetch);
  }

  void hold(Job job, JobSnapshot delivered) {
    inFlight.add(job);
    outbox.add(delivered);
  }

  boolean release(Job job) {
    return inFlight.remove(job);
  }

  Set<Job> inFlight() {
    return inFlight;
  }

  int holding() {
    return inFlight.size();
  }

  void writable(boolean writable) {
    this.writable = writable;
  }

  boolean closed() {
    return closed;
  }

  void close() {
    closed = true;
  }

  /** Hands this turn's dispatched jobs to the transport in one call. */
  void flush() {
    if (!outbox.isEmpty()) {
      sink.deliver(List.copyOf(outbox));
      outbox.clear();
    }
  }
}

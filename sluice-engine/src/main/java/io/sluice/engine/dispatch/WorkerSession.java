package io.sluice.engine.dispatch;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One take stream as the engine sees it: which queues it takes from, how many unfinished jobs it
 * may hold, and which jobs it holds now.
 *
 * <p>Owned by the engine thread. Every job in {@link #inFlight} has this session as its holder.
 * A session whose sink is {@linkplain JobSink#pacedByWrites paced by writes} has at most one
 * delivery not yet written to its socket: at most {@link #MAX_DELIVERY} jobs, and no job added
 * once the payloads it carries reach {@link #MAX_DELIVERY_BYTES}. A delivery holding jobs charged
 * to durable budgets (X4) waits for the commit of their token state, and meanwhile the session
 * takes no further job.
 */
public final class WorkerSession {
  /** The most jobs one delivery to a write-paced sink holds. */
  public static final int MAX_DELIVERY = 256;
  /** Payload bytes after which a delivery to a write-paced sink takes no further job. */
  public static final long MAX_DELIVERY_BYTES = 1 << 20;

  private final long id;
  private final Set<String> queues;
  /** The most unfinished jobs held at once; never 0 (unlimited prefetch is capped). */
  private final int holdLimit;
  private final JobSink sink;
  private final boolean paced;
  private final Set<Job> inFlight = new LinkedHashSet<>();
  private final List<JobSnapshot> outbox = new ArrayList<>();
  /** Payload bytes in the outbox (of the payloads the engine had in memory). */
  private long outboxBytes;
  /** A delivery was handed to a paced sink and not yet reported written. */
  private boolean awaitingWrite;
  /** The outbox holds a job charged to a durable budget in the current dispatch pass. */
  private boolean holdsUncommitted;
  /** The dispatch pass whose delivery waits for a commit, or 0 when none does. */
  private long awaitingCommitOf;
  /** The dispatcher's count of successes when this session's worker last reported one; 0: never. */
  private long lastSuccess;
  private long lastSuccessMs;
  private boolean closed;

  /**
   * @param queues the queues to take from, or null for every queue
   * @param holdLimit the most unfinished jobs held at once (at least 1)
   */
  public WorkerSession(long id, Set<String> queues, int holdLimit, JobSink sink) {
    if (holdLimit < 1) {
      throw new IllegalArgumentException("a session holds at least one job");
    }
    this.id = id;
    this.queues = queues;
    this.holdLimit = holdLimit;
    this.sink = sink;
    this.paced = sink.pacedByWrites();
  }

  public long id() {
    return id;
  }

  public Set<String> queues() {
    return queues;
  }

  boolean wantsJobs() {
    return !closed && !awaitingWrite && awaitingCommitOf == 0 && inFlight.size() < holdLimit
        && (!paced || (outbox.size() < MAX_DELIVERY && outboxBytes < MAX_DELIVERY_BYTES));
  }

  /** {@code awaitsCommit}: the job was charged to a durable budget (X4). */
  void hold(Job job, JobSnapshot delivered, boolean awaitsCommit) {
    inFlight.add(job);
    outbox.add(delivered);
    holdsUncommitted |= awaitsCommit;
    if (delivered.payload() != null) {
      outboxBytes += delivered.payload().length;
    }
  }

  /** Holds a job delivered before, again (see {@link Dispatcher#restore}). */
  void restore(Job job) {
    inFlight.add(job);
  }

  /** Drops every held job, which belonged to a discarded engine state. */
  void forgetHeld() {
    inFlight.clear();
  }

  boolean release(Job job) {
    return inFlight.remove(job);
  }

  void succeeded(long stamp, long nowMs) {
    lastSuccess = stamp;
    lastSuccessMs = nowMs;
  }

  long lastSuccess() {
    return lastSuccess;
  }

  /** True when this session's worker reported a success at {@code sinceMs} or later. */
  boolean succeededSince(long sinceMs) {
    return lastSuccess > 0 && lastSuccessMs >= sinceMs;
  }

  Set<Job> inFlight() {
    return inFlight;
  }

  int holding() {
    return inFlight.size();
  }

  /** The transport wrote the last delivery and can take another. */
  void written() {
    awaitingWrite = false;
  }

  boolean closed() {
    return closed;
  }

  void close() {
    closed = true;
  }

  boolean holdsUncommitted() {
    return holdsUncommitted;
  }

  /** The outbox waits for the commit of the turn taken after dispatch pass {@code pass}. */
  void awaitCommit(long pass) {
    holdsUncommitted = false;
    awaitingCommitOf = pass;
  }

  /**
   * The commit that pass {@code pass}'s delivery waited for is done: it goes out, less the jobs
   * that left this session meanwhile. False when the session no longer waits for that pass (a
   * rollback abandoned it).
   */
  boolean commitDone(long pass) {
    if (awaitingCommitOf != pass) {
      return false;
    }
    awaitingCommitOf = 0;
    Set<JobId> held = new HashSet<>();
    for (Job job : inFlight) {
      held.add(job.id());
    }
    outbox.removeIf(snapshot -> !held.contains(snapshot.id()));
    if (closed) {
      outbox.clear();
      outboxBytes = 0;
    } else {
      flush();
    }
    return true;
  }

  /**
   * Drops the delivery of pass {@code pass}, whose commit failed (X4): it was never written, and
   * its jobs are ready again in the rebuilt state. Returns their ids; none when the session was
   * not waiting for that pass.
   */
  public Set<JobId> abandonDelivery(long pass) {
    if (awaitingCommitOf != pass) {
      return Set.of();
    }
    Set<JobId> abandoned = new HashSet<>();
    for (JobSnapshot snapshot : outbox) {
      abandoned.add(snapshot.id());
    }
    outbox.clear();
    outboxBytes = 0;
    awaitingCommitOf = 0;
    return abandoned;
  }

  /** Hands this turn's dispatched jobs to the transport in one call, unless they await a commit. */
  void flush() {
    if (!outbox.isEmpty() && awaitingCommitOf == 0) {
      // Marked first: a sink may report the delivery written before deliver returns.
      awaitingWrite = paced;
      List<JobSnapshot> delivery = List.copyOf(outbox);
      outbox.clear();
      outboxBytes = 0;
      sink.deliver(delivery);
    }
  }
}

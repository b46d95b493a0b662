package io.sluice.bench.torture;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client's record of a torture run: every answer the server gave (or failed to give) to an
 * enqueue, ack or failure report, and every delivery, each stamped with the order in which the
 * client observed it and the generation (one server process life, numbered from 1) it came from.
 *
 * <p>Written from the client's event loops, read by the main thread once a generation has
 * quiesced. Jobs are known by their payload sequence number ({@code seq}), unique within the run
 * and reserved before the enqueue is sent, so a job whose enqueue answer was lost in a crash is
 * still recognised when it is delivered.
 */
final class Ledger {

  /** What the client observed. {@code *_UNANSWERED}: the request got no answer (crash). */
  enum Kind {
    ENQUEUE_ACKED,
    ENQUEUE_UNANSWERED,
    ENQUEUE_REJECTED,
    DELIVERED,
    ACK_ACKED,
    ACK_UNANSWERED,
    ACK_REJECTED,
    FAILURE_ACKED,
    FAILURE_UNANSWERED,
    FAILURE_REJECTED
  }

  /**
   * One observation.
   *
   * @param stamp position in the order the client observed events, from 0
   * @param atNanos when, relative to the ledger's creation
   * @param seq the job's payload sequence number, or -1 for a delivered job that is not this run's
   * @param jobId the server's id, or null where the client does not know it
   * @param detail {@code attempts} for DELIVERED and FAILURE_ACKED, the HTTP status for
   *     {@code *_REJECTED}, else 0
   */
  record Event(long stamp, long atNanos, int gen, Kind kind, int seq, String jobId, int detail) {}

  private final long startNanos = System.nanoTime();
  private final AtomicInteger nextSeq = new AtomicInteger();
  private final AtomicLong enqueued = new AtomicLong();
  private final AtomicLong completed = new AtomicLong();
  /** Guarded by this; stamps are list indexes. */
  private final List<Event> events = new ArrayList<>();

  /** Reserves {@code n} consecutive sequence numbers for jobs about to be enqueued; returns the first. */
  int reserve(int n) {
    return nextSeq.getAndAdd(n);
  }

  /** Sequence numbers handed out so far, i.e. jobs whose enqueue was (about to be) sent. */
  int sent() {
    return nextSeq.get();
  }

  void record(int gen, Kind kind, int seq, String jobId, int detail) {
    if (kind == Kind.ENQUEUE_ACKED) {
      enqueued.incrementAndGet();
    } else if (kind == Kind.ACK_ACKED) {
      completed.incrementAndGet();
    }
    long at = System.nanoTime() - startNanos;
    synchronized (this) {
      events.add(new Event(events.size(), at, gen, kind, seq, jobId, detail));
    }
  }

  /** Acknowledged enqueues minus acknowledged acks: roughly the jobs the server holds. */
  long backlog() {
    return enqueued.get() - completed.get();
  }

  synchronized int size() {
    return events.size();
  }

  /** Every event so far, in stamp order. */
  synchronized List<Event> events() {
    return List.copyOf(events);
  }

  /** Events per kind from index {@code from} on: one generation's counts for progress lines. */
  synchronized Map<Kind, Integer> countsSince(int from) {
    Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
    for (Kind k : Kind.values()) {
      counts.put(k, 0);
    }
    for (int i = from; i < events.size(); i++) {
      counts.merge(events.get(i).kind(), 1, Integer::sum);
    }
    return counts;
  }
}

package io.sluice.bench;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Shared bookkeeping for the throughput drain: which jobs arrived how often, which were acked,
 * and when the drain is finished.
 *
 * <p>Per-sequence counters let the bench prove exactly-once delivery without keeping a set of
 * server ids. The aggregate counters are only bumped once per ack batch, not per job, to keep
 * cross-thread traffic off the hot path.
 */
final class DrainTracker {

  private final int jobs;
  private final AtomicIntegerArray deliveries;
  private final AtomicIntegerArray acked;
  /** Deliveries handed to an ack request (ours, duplicates and strays alike). */
  private final AtomicLong submitted = new AtomicLong();
  /** Deliveries whose ack request has been answered, whatever the answer. */
  private final AtomicLong answered = new AtomicLong();
  private final AtomicLong distinctSubmitted = new AtomicLong();
  private final AtomicLong strays = new AtomicLong();
  private final AtomicLong notFound = new AtomicLong();
  private final Promise<Long> done = Promise.promise();

  DrainTracker(int jobs) {
    this.jobs = jobs;
    this.deliveries = new AtomicIntegerArray(jobs);
    this.acked = new AtomicIntegerArray(jobs);
  }

  /**
   * Records one delivery. @return true if it is the first delivery of one of our jobs
   * (the caller counts those per batch and reports them through {@link #submitted}).
   */
  boolean delivered(int seq) {
    if (seq < 0 || seq >= jobs) {
      strays.incrementAndGet();
      return false;
    }
    return deliveries.incrementAndGet(seq) == 1;
  }

  void submitted(int deliveriesInBatch, int firstDeliveriesInBatch) {
    // distinct before submitted: the completion check reads them in the opposite order.
    distinctSubmitted.addAndGet(firstDeliveriesInBatch);
    submitted.addAndGet(deliveriesInBatch);
  }

  void ackConfirmed(int seq) {
    if (seq >= 0 && seq < jobs) {
      acked.set(seq, 1);
    }
  }

  void ackNotFound(int count) {
    notFound.addAndGet(count);
  }

  /** Called after each answered ack batch; completes {@link #done()} when nothing is left. */
  void answered(int deliveriesInBatch) {
    long a = answered.addAndGet(deliveriesInBatch);
    if (a == submitted.get() && distinctSubmitted.get() == jobs) {
      done.tryComplete(System.nanoTime());
    }
  }

  void fail(Throwable t) {
    done.tryFail(t);
  }

  /** Completes with the nanoTime of the last answered ack once every job was received and acked. */
  Future<Long> done() {
    return done.future();
  }

  /** Final tallies; call only after the streams are closed. */
  Tally tally() {
    long missing = 0;
    long duplicates = 0;
    long ackedDistinct = 0;
    for (int i = 0; i < jobs; i++) {
      int d = deliveries.get(i);
      if (d == 0) {
        missing++;
      } else if (d > 1) {
        duplicates += d - 1;
      }
      ackedDistinct += acked.get(i);
    }
    return new Tally(jobs - missing, missing, duplicates, strays.get(), ackedDistinct, notFound.get());
  }

  record Tally(long received, long missing, long duplicates, long strays, long acked, long ackNotFound) {}
}

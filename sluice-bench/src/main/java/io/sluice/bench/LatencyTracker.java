package io.sluice.bench;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Shared state of the latency workload: when each job was sent (written by the sender, read by
 * whichever worker receives the job) and the counters that tell when everything is settled.
 */
final class LatencyTracker {

  private final int jobs;
  private final AtomicLongArray sentAt;
  private final AtomicIntegerArray deliveries;
  private final AtomicLong enqueueAnswered = new AtomicLong();
  private final AtomicLong enqueueErrors = new AtomicLong();
  private final AtomicLong distinctReceived = new AtomicLong();
  private final AtomicLong deliveriesTotal = new AtomicLong();
  private final AtomicLong acksAnswered = new AtomicLong();
  private final AtomicLong ackErrors = new AtomicLong();
  private final AtomicLong strays = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final Promise<Void> done = Promise.promise();

  LatencyTracker(int jobs) {
    this.jobs = jobs;
    this.sentAt = new AtomicLongArray(jobs);
    this.deliveries = new AtomicIntegerArray(jobs);
  }

  int jobs() {
    return jobs;
  }

  void sent(int seq, long nanos) {
    sentAt.set(seq, nanos);
  }

  /**
   * Counts a delivery. @return the send timestamp if this is the first delivery of one of our
   * jobs, else 0 (stray or duplicate: not a latency sample).
   */
  long delivered(int seq) {
    deliveriesTotal.incrementAndGet();
    if (seq < 0 || seq >= jobs) {
      strays.incrementAndGet();
      return 0;
    }
    if (deliveries.incrementAndGet(seq) > 1) {
      duplicates.incrementAndGet();
      return 0;
    }
    long sent = sentAt.get(seq);
    distinctReceived.incrementAndGet();
    return sent;
  }

  void enqueueAnswered(boolean ok) {
    if (!ok) {
      enqueueErrors.incrementAndGet();
    }
    enqueueAnswered.incrementAndGet();
    maybeDone();
  }

  void ackAnswered(boolean ok) {
    if (!ok) {
      ackErrors.incrementAndGet();
    }
    acksAnswered.incrementAndGet();
    maybeDone();
  }

  void fail(Throwable t) {
    done.tryFail(t);
  }

  Future<Void> done() {
    return done.future();
  }

  private void maybeDone() {
    // A job whose enqueue failed will never arrive, so the run could only end by timeout: fail fast.
    if (enqueueErrors.get() > 0) {
      done.tryFail(new BenchFailure(enqueueErrors.get() + " enqueue requests failed"));
      return;
    }
    if (enqueueAnswered.get() == jobs && distinctReceived.get() == jobs
        && acksAnswered.get() == deliveriesTotal.get()) {
      done.tryComplete();
    }
  }

  long received() {
    return distinctReceived.get();
  }

  long enqueueErrors() {
    return enqueueErrors.get();
  }

  long ackErrors() {
    return ackErrors.get();
  }

  long strays() {
    return strays.get();
  }

  long duplicates() {
    return duplicates.get();
  }
}

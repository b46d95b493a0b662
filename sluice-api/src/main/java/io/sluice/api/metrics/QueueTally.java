package io.sluice.api.metrics;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One queue's job events as the engine thread counts them. Only that thread writes, so a count
 * is a read and an opaque store, not an atomic add; a scrape reads the values as they stand
 * ({@link #snapshot}), each on its own: a scrape during a turn may see a job's count without its
 * time in the sum, never a torn or lost value. Nothing is copied per turn: the engine turns
 * several times per job, scrapes come every few seconds.
 */
final class QueueTally {
  /** What a scrape reads: an immutable copy. */
  record Snapshot(String queue, long enqueued, long completed, long failed, long dead,
      long[] waitBuckets, double waitSum, long[] runBuckets, double runSum) {}

  private static final int ENQUEUED = 0;
  private static final int COMPLETED = 1;
  private static final int FAILED = 2;
  private static final int DEAD = 3;
  /** The sums are doubles, held as their bits. */
  private static final int WAIT_SUM = 4;
  private static final int RUN_SUM = 5;
  private static final int WAIT_BUCKETS = 6;

  private final String queue;
  private final double[] upperBoundsSeconds;
  private final int runBuckets;
  /** The counters, the sums, then the wait and the run buckets. */
  private final AtomicLongArray values;

  /** @param upperBoundsSeconds the finite bucket bounds; one more bucket takes the rest */
  QueueTally(String queue, double[] upperBoundsSeconds) {
    this.queue = queue;
    this.upperBoundsSeconds = upperBoundsSeconds;
    this.runBuckets = WAIT_BUCKETS + buckets();
    this.values = new AtomicLongArray(runBuckets + buckets());
  }

  private int buckets() {
    return upperBoundsSeconds.length + 1;
  }

  void enqueued() {
    increment(ENQUEUED);
  }

  void dispatched(double waitedSeconds) {
    increment(WAIT_BUCKETS + bucket(waitedSeconds));
    addSeconds(WAIT_SUM, waitedSeconds);
  }

  void reported(double ranSeconds, boolean success, boolean died) {
    if (success) {
      increment(COMPLETED);
    } else {
      increment(FAILED);
      if (died) {
        increment(DEAD);
      }
    }
    increment(runBuckets + bucket(ranSeconds));
    addSeconds(RUN_SUM, ranSeconds);
  }

  private void increment(int slot) {
    values.setOpaque(slot, values.getPlain(slot) + 1);
  }

  private void addSeconds(int slot, double seconds) {
    double sum = Double.longBitsToDouble(values.getPlain(slot)) + seconds;
    values.setOpaque(slot, Double.doubleToRawLongBits(sum));
  }

  /** The first bucket whose upper bound the value does not exceed (Prometheus {@code le}). */
  private int bucket(double seconds) {
    int i = 0;
    while (i < upperBoundsSeconds.length && seconds > upperBoundsSeconds[i]) {
      i++;
    }
    return i;
  }

  /** Any thread. */
  Snapshot snapshot() {
    return new Snapshot(queue, values.getOpaque(ENQUEUED), values.getOpaque(COMPLETED),
        values.getOpaque(FAILED), values.getOpaque(DEAD), read(WAIT_BUCKETS),
        Double.longBitsToDouble(values.getOpaque(WAIT_SUM)), read(runBuckets),
        Double.longBitsToDouble(values.getOpaque(RUN_SUM)));
  }

  private long[] read(int from) {
    long[] counts = new long[buckets()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = values.getOpaque(from + i);
    }
    return counts;
  }
}

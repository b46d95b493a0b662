package io.sluice.api.metrics;

/**
 * One queue's job events as the engine thread counts them, in plain fields: only that thread
 * writes. A scrape reads them where they stand ({@link #snapshot}) after reading the volatile
 * count of turns the engine writes at the end of each ({@link JobEventMetrics}): it sees every
 * count of the turns before, and perhaps some of the turn under way (64-bit fields are not torn
 * on the 64-bit JVMs Sluice runs on). Nothing is copied per turn, and no count pays for an
 * atomic or a VarHandle access, which C1 does not inline (12 ns against 1 per count).
 */
final class QueueTally {
  /** What a scrape reads: an immutable copy. */
  record Snapshot(String queue, long enqueued, long completed, long failed, long dead,
      long[] waitBuckets, double waitSum, long[] runBuckets, double runSum) {}

  private final String queue;
  private final double[] upperBoundsSeconds;
  private long enqueued;
  private long completed;
  private long failed;
  private long dead;
  private final long[] waitBuckets;
  private double waitSum;
  private final long[] runBuckets;
  private double runSum;

  /** @param upperBoundsSeconds the finite bucket bounds; one more bucket takes the rest */
  QueueTally(String queue, double[] upperBoundsSeconds) {
    this.queue = queue;
    this.upperBoundsSeconds = upperBoundsSeconds;
    this.waitBuckets = new long[upperBoundsSeconds.length + 1];
    this.runBuckets = new long[upperBoundsSeconds.length + 1];
  }

  void enqueued() {
    enqueued++;
  }

  void dispatched(double waitedSeconds) {
    waitBuckets[bucket(waitedSeconds)]++;
    waitSum += waitedSeconds;
  }

  void reported(double ranSeconds, boolean success, boolean died) {
    if (success) {
      completed++;
    } else {
      failed++;
      if (died) {
        dead++;
      }
    }
    runBuckets[bucket(ranSeconds)]++;
    runSum += ranSeconds;
  }

  /** The first bucket whose upper bound the value does not exceed (Prometheus {@code le}). */
  private int bucket(double seconds) {
    int i = 0;
    while (i < upperBoundsSeconds.length && seconds > upperBoundsSeconds[i]) {
      i++;
    }
    return i;
  }

  /** Any thread, after reading the turns published. */
  Snapshot snapshot() {
    return new Snapshot(queue, enqueued, completed, failed, dead, waitBuckets.clone(), waitSum,
        runBuckets.clone(), runSum);
  }
}

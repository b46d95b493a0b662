package io.sluice.bench;

import java.util.concurrent.TimeUnit;

/**
 * The arithmetic of budget-pacing, kept free of I/O so it can be unit tested.
 *
 * <p>A rate-limited backlog should be dispatched on a fixed grid, one job every {@code period}.
 * Receipt {@code i} (in arrival order) is compared with {@code t0 + i * period}; {@code t0} is
 * fitted as the median of {@code receipt_i - i * period}, so a first receipt that happens to be
 * early or late (stream setup, a bucket that started full) does not shift the whole grid.
 */
final class PacingMath {
  private PacingMath() {}

  /** The fitted grid origin: median over i of {@code receipts[i] - i * period}. */
  static long gridOffset(long[] receipts, long periodNanos) {
    long[] residual = new long[receipts.length];
    for (int i = 0; i < receipts.length; i++) {
      residual[i] = receipts[i] - i * periodNanos;
    }
    return Distribution.median(residual);
  }

  /** {@code |receipts[i] - (t0 + i * period)|} with the fitted {@code t0}. */
  static long[] gridDeviations(long[] receipts, long periodNanos) {
    if (receipts.length == 0) {
      return new long[0];
    }
    long t0 = gridOffset(receipts, periodNanos);
    long[] dev = new long[receipts.length];
    for (int i = 0; i < receipts.length; i++) {
      dev[i] = Math.abs(receipts[i] - (t0 + i * periodNanos));
    }
    return dev;
  }

  /**
   * {@code |(receipts[i] - receipts[i-1]) - period|} for i >= 1: the spacing error of each
   * dispatch on its own. Unlike the grid deviation it does not accumulate when the server lets the
   * schedule slip (a bucket of capacity 1 discards time accrued while it waits to be spent).
   */
  static long[] intervalDeviations(long[] receipts, long periodNanos) {
    long[] dev = new long[Math.max(0, receipts.length - 1)];
    for (int i = 1; i < receipts.length; i++) {
      dev[i - 1] = Math.abs(receipts[i] - receipts[i - 1] - periodNanos);
    }
    return dev;
  }

  /**
   * How much longer than ideal the whole backlog took: {@code (last - first) - (n - 1) * period}.
   * Positive means the schedule slipped (achieved rate below the budget's).
   */
  static long drift(long[] receipts, long periodNanos) {
    if (receipts.length < 2) {
      return 0;
    }
    return receipts[receipts.length - 1] - receipts[0] - (receipts.length - 1) * periodNanos;
  }

  /** Whole-millisecond instants as nanoseconds, so they fit the same grid arithmetic. */
  static long[] millisToNanos(long[] millis) {
    long[] nanos = new long[millis.length];
    for (int i = 0; i < millis.length; i++) {
      nanos[i] = TimeUnit.MILLISECONDS.toNanos(millis[i]);
    }
    return nanos;
  }

  /**
   * Handover latency: for each job but the last, from the moment its ack was sent to the arrival
   * of the next job: {@code receipts[i + 1] - ackSent[i]}.
   */
  static long[] ackToNext(long[] ackSent, long[] receipts) {
    int n = Math.min(ackSent.length, receipts.length - 1);
    long[] lat = new long[Math.max(0, n)];
    for (int i = 0; i < n; i++) {
      lat[i] = receipts[i + 1] - ackSent[i];
    }
    return lat;
  }
}

package io.sluice.bench;

import java.util.Arrays;

/**
 * The arithmetic of budget-many, kept free of I/O so it can be unit tested.
 *
 * <p>Budget {@code i} is {@code time_based} with allocation 1 per {@code 1000 + (i * 37 % 1000)}
 * ms and no burst, so it holds at most one token: it can pay for one dispatch at once (its bucket
 * starts full), then one per period after the previous dispatch. Job {@code seq} is bound to budget
 * {@code seq / jobsPerBudget}.
 */
final class ManyBudgetsMath {
  private ManyBudgetsMath() {}

  static long durationMillis(int budget) {
    return 1000 + (budget * 37L % 1000);
  }

  static int budgetOf(int seq, int jobsPerBudget) {
    return seq / jobsPerBudget;
  }

  /**
   * Dispatches an ideal server completes within {@code windowNanos} of the workers starting:
   * per budget one at once, then one per period, at most {@code jobsPerBudget}.
   */
  static long idealDispatches(int budgets, int jobsPerBudget, long windowNanos) {
    long total = 0;
    for (int i = 0; i < budgets; i++) {
      long periods = windowNanos / (durationMillis(i) * 1_000_000L);
      total += Math.min(jobsPerBudget, 1 + periods);
    }
    return total;
  }

  /**
   * When an ideal server dispatches the last job, counted from the first dispatches (all budgets
   * start full): the slowest budget's {@code (jobsPerBudget - 1)} periods.
   */
  static long idealDrainNanos(int budgets, int jobsPerBudget) {
    long longest = 0;
    for (int i = 0; i < budgets; i++) {
      longest = Math.max(longest, durationMillis(i));
    }
    return (jobsPerBudget - 1) * longest * 1_000_000L;
  }

  /** Lateness of every dispatch after a budget's first, and how many came too early. */
  record Gaps(long[] lateness, int early) {}

  /**
   * For each budget, sorts its receipt instants and measures each gap against the period:
   * {@code lateness = (r[k] - r[k-1]) - period}. Ideal is 0; positive is a late wake-up; a gap more
   * than {@code toleranceNanos} shorter than the period is counted as early (a rate violation,
   * beyond what client-side jitter explains).
   *
   * @param receipts receipt instant by job sequence number; 0 = not received (skipped)
   */
  static Gaps gaps(long[] receipts, int budgets, int jobsPerBudget, long toleranceNanos) {
    long[] lateness = new long[receipts.length];
    int count = 0;
    int early = 0;
    long[] mine = new long[jobsPerBudget];
    for (int b = 0; b < budgets; b++) {
      int n = 0;
      for (int j = 0; j < jobsPerBudget; j++) {
        int seq = b * jobsPerBudget + j;
        if (seq < receipts.length && receipts[seq] != 0) {
          mine[n++] = receipts[seq];
        }
      }
      Arrays.sort(mine, 0, n);
      long period = durationMillis(b) * 1_000_000L;
      for (int k = 1; k < n; k++) {
        long late = mine[k] - mine[k - 1] - period;
        lateness[count++] = late;
        if (late < -toleranceNanos) {
          early++;
        }
      }
    }
    return new Gaps(Arrays.copyOf(lateness, count), early);
  }
}

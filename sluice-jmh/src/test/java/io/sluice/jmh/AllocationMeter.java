package io.sluice.jmh;

import java.lang.management.ManagementFactory;

/**
 * Bytes a hot path allocates per unit of work on the calling thread: the allocation budgets'
 * measure, the same on a busy machine as on an idle one. The first rounds warm the path up and
 * are not counted.
 */
public final class AllocationMeter {
  private static final int ROUNDS = 30;

  private AllocationMeter() {
  }

  /**
   * Bytes each of {@code round}'s {@code units} allocates, not counting what {@code setUp}
   * allocates before each round.
   */
  public static long bytesPerUnit(int units, Runnable setUp, Runnable round) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long allocated = 0;
    for (int i = 0; i < 2 * ROUNDS; i++) {
      setUp.run();
      long before = threads.getCurrentThreadAllocatedBytes();
      round.run();
      if (i >= ROUNDS) {
        allocated += threads.getCurrentThreadAllocatedBytes() - before;
      }
    }
    return allocated / ((long) ROUNDS * units);
  }
}

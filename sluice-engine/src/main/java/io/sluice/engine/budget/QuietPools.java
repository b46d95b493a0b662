package io.sluice.engine.budget;

import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * Partition pools that no job waits on or runs in, by the instant they may next be idle (full and
 * not paused), so that they are forgotten then (X3: memory is held only for active partitions).
 * Entries are checked when due, never trusted: a pool that got a job again is simply dropped,
 * and enters again when it empties.
 */
final class QuietPools {
  private record Entry(long atMs, Pool pool) {}

  private final PriorityQueue<Entry> due =
      new PriorityQueue<>((a, b) -> Long.compare(a.atMs(), b.atMs()));

  /** The pool just emptied (or its pause changed): look at it once it may be idle. */
  void watch(Pool pool, long nowMs) {
    due.add(new Entry(pool.idleFrom(nowMs), pool));
  }

  /**
   * Forgets every watched pool that is idle by {@code nowMs}, telling {@code forgotten} of each;
   * watches again the quiet rest.
   */
  void forgetIdle(long nowMs, Consumer<Pool> forgotten) {
    while (!due.isEmpty() && due.peek().atMs() <= nowMs) {
      Pool pool = due.poll().pool();
      Budget budget = pool.budget();
      if (budget.poolIfHeld(pool.partition()) != pool || !pool.empty()) {
        continue;
      }
      if (pool.idleAt(nowMs)) {
        budget.forget(pool);
        forgotten.accept(pool);
        continue;
      }
      long next = pool.idleFrom(nowMs);
      if (next > nowMs) {
        due.add(new Entry(next, pool)); // paused again or spent since: later
      }
    }
  }
}

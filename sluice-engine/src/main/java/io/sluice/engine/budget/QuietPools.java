package io.sluice.engine.budget;

import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * Partition pools that no job waits on or runs in, by the instant they may next be idle (full and
 * not paused), so that they are forgotten then (X3: memory is held only for active partitions).
 * A pool is watched once, at its earliest instant ({@link Pool#quietCheckAtMs}): a partition that
 * empties after every job adds nothing while it is watched. Entries are checked when due, never
 * trusted: a pool that got a job again is dropped, and enters again when it empties.
 */
final class QuietPools {
  private record Entry(long atMs, Pool pool) {}

  private final PriorityQueue<Entry> due =
      new PriorityQueue<>((a, b) -> Long.compare(a.atMs(), b.atMs()));

  /** The pool just emptied (or its pause changed): look at it once it may be idle. */
  void watch(Pool pool, long nowMs) {
    long atMs = pool.idleFrom(nowMs);
    if (atMs < pool.quietCheckAtMs) {
      pool.quietCheckAtMs = atMs;
      due.add(new Entry(atMs, pool));
    }
  }

  /** Entries waiting to be looked at (one per watched pool, and any superseded ones). */
  int watched() {
    return due.size();
  }

  /** The earliest instant a watched pool is looked at, or {@link Long#MAX_VALUE}. */
  long nextDueMs() {
    Entry first = due.peek();
    return first == null ? Long.MAX_VALUE : first.atMs();
  }

  /**
   * Forgets every watched pool that is idle by {@code nowMs}, telling {@code forgotten} of each;
   * watches again the quiet rest.
   */
  void forgetIdle(long nowMs, Consumer<Pool> forgotten) {
    while (!due.isEmpty() && due.peek().atMs() <= nowMs) {
      Entry entry = due.poll();
      Pool pool = entry.pool();
      if (entry.atMs() != pool.quietCheckAtMs) {
        continue; // superseded by an earlier look
      }
      pool.quietCheckAtMs = Long.MAX_VALUE;
      Budget budget = pool.budget();
      if (budget.poolIfHeld(pool.partition()) != pool || !pool.empty()) {
        continue;
      }
      if (pool.idleAt(nowMs)) {
        budget.forget(pool);
        forgotten.accept(pool);
      } else if (pool.idleFrom(nowMs) > nowMs) {
        watch(pool, nowMs); // paused again or spent since: later
      }
    }
  }
}

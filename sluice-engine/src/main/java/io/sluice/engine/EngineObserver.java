package io.sluice.engine;

/**
 * Told what the engine does to jobs, for metrics and live feeds. Called on the engine thread
 * (and {@link #committed} on the commit thread too), so an implementation must be quick and must
 * not block (count, or hand off). Effects are reported when they happen in memory: a turn whose
 * commit then fails was still counted.
 */
public interface EngineObserver {
  EngineObserver NONE = new EngineObserver() {};

  /** An observer that tells {@code first}, then {@code second}, of everything. */
  static EngineObserver both(EngineObserver first, EngineObserver second) {
    return new BothObservers(first, second);
  }

  /** A new job's enqueue is durable. */
  default void enqueued(String queue) {}

  /** A job went to a worker, {@code waitedMs} after it became ready. */
  default void dispatched(String queue, long waitedMs) {}

  /** A worker reported success, {@code ranMs} after the job was dispatched. */
  default void completed(String queue, long ranMs) {}

  /** A worker reported failure; {@code dead} when the job will not be retried. */
  default void failed(String queue, long ranMs, boolean dead) {}

  /**
   * A store commit succeeded after {@code nanos}; {@code synced} when it was fsynced. Called on
   * whichever thread wrote it: the engine thread (buffered) or the commit thread.
   */
  default void committed(boolean synced, long nanos) {}

  /**
   * The engine has just published its state for other threads (end of a turn, after a dispatch):
   * an observer that tallies on the engine thread publishes its tallies here.
   */
  default void published() {}
}

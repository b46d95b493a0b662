package io.sluice.engine.dispatch;

import io.sluice.engine.job.JobSnapshot;
import java.util.List;

/**
 * Where a take stream receives its jobs. Called on the engine thread; implementations hand the
 * jobs to their own thread and return at once.
 */
public interface JobSink {
  void deliver(List<JobSnapshot> jobs);

  /**
   * Whether this sink is paced by its writes: after a delivery its session gets nothing more
   * until the transport reports the delivery written ({@code Engine.sessionWritten}), so the
   * server never dequeues more than one delivery ahead of a socket that is not being read
   * (API.md §8.4). Sinks that consume synchronously, as in tests, need no pacing.
   */
  default boolean pacedByWrites() {
    return false;
  }
}

package io.sluice.engine;

import io.sluice.engine.job.Job;
import java.util.List;

/**
 * Forgets finished jobs whose retention has run out (API.md §6), every reaper interval; a job past
 * its purge time is already invisible to every API, so the reaper only frees memory and disk.
 *
 * <p>Runs on the engine thread.
 */
final class Reaper {
  /**
   * The most jobs one pass forgets, so that a large expiry does not hold the engine thread; a
   * full pass is followed by another on the next turn.
   */
  static final int BATCH = 1000;

  private final Placement placement;
  private final JobRemoval removal;
  private final long intervalMs;
  private long nextPassAtMs;

  Reaper(Placement placement, JobRemoval removal, long intervalMs) {
    this.placement = placement;
    this.removal = removal;
    this.intervalMs = intervalMs;
  }

  /** When the next pass has work, or {@link Long#MAX_VALUE}. */
  long nextDeadlineMs() {
    return placement.retainsAny()
        ? Math.max(nextPassAtMs, placement.nextPurgeAtMs())
        : Long.MAX_VALUE;
  }

  void runDue(long nowMs) {
    if (nowMs < nextPassAtMs || placement.nextPurgeAtMs() > nowMs) {
      return;
    }
    List<Job> expired = placement.dueRetained(nowMs, BATCH);
    for (Job job : expired) {
      removal.forget(job);
    }
    nextPassAtMs = expired.size() == BATCH ? nowMs : nowMs + intervalMs;
  }
}

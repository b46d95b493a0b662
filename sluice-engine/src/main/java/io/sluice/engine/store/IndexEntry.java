package io.sluice.engine.store;

import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;

/**
 * What a stored job record is indexed under: its queue, its type and its {@link State}. The store
 * keeps one secondary-index key per component, so that listings filtered by queue, type or status
 * walk only the jobs that can match. Every write names the entry it replaces, which the engine
 * remembers per job, so the store never reads before it writes.
 */
public record IndexEntry(String queue, String type, State state) {

  /**
   * The status classes the index tells apart. The live status of an unfinished job (scheduled,
   * ready or in flight) is not written on every change, so one class covers all three.
   */
  public enum State {
    UNFINISHED,
    COMPLETED,
    DEAD;

    public static State of(JobStatus status) {
      return switch (status) {
        case COMPLETED -> COMPLETED;
        case DEAD -> DEAD;
        default -> UNFINISHED;
      };
    }
  }

  public static IndexEntry of(JobSnapshot job) {
    return new IndexEntry(job.queue(), job.type(), State.of(job.status()));
  }

  /** The entry for {@code job}, reusing {@code previous} when nothing indexed changed. */
  public static IndexEntry of(JobSnapshot job, IndexEntry previous) {
    if (previous != null && previous.queue.equals(job.queue()) && previous.type.equals(job.type())
        && previous.state == State.of(job.status())) {
      return previous;
    }
    return of(job);
  }
}

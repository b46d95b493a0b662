package io.sluice.engine.store;

import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a stored job record is indexed under: its queue, its type and its {@link State}. The store
 * keeps one secondary-index key per component, so that listings filtered by queue, type or status
 * walk only the jobs that can match. Every write names the entry it replaces, so the store never
 * reads before it writes.
 */
public record IndexEntry(String queue, String type, State state) {
  private static final int MAX_SHARED = 10_000;
  /** Canonical entries, read and filled from any thread; bounded, so odd names cannot grow it. */
  private static final Map<IndexEntry, IndexEntry> SHARED = new ConcurrentHashMap<>();

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

  /**
   * Written out, as is {@link #hashCode}: a record's own go through method handles, which C1
   * does not inline, and every job written looks its entry up.
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof IndexEntry other && state == other.state
        && Objects.equals(queue, other.queue) && Objects.equals(type, other.type);
  }

  @Override
  public int hashCode() {
    return (Objects.hashCode(queue) * 31 + Objects.hashCode(type)) * 31 + Objects.hashCode(state);
  }

  /** The entry for {@code job}. */
  public static IndexEntry of(JobSnapshot job) {
    return of(job.queue(), job.type(), job.status());
  }

  /** The entry for {@code job}, reusing {@code previous} when nothing indexed changed. */
  public static IndexEntry of(JobSnapshot job, IndexEntry previous) {
    if (previous != null && previous.queue.equals(job.queue()) && previous.type.equals(job.type())
        && previous.state == State.of(job.status())) {
      return previous;
    }
    return of(job);
  }

  /**
   * The entry for a job of this queue, type and status, shared with every other job of the same
   * three (there are few of those).
   */
  public static IndexEntry of(String queue, String type, JobStatus status) {
    IndexEntry entry = new IndexEntry(queue, type, State.of(status));
    IndexEntry shared = SHARED.get(entry);
    if (shared != null) {
      return shared;
    }
    if (SHARED.size() < MAX_SHARED) {
      SHARED.putIfAbsent(entry, entry);
    }
    return entry;
  }
}

package io.sluice.engine.store;

import io.sluice.engine.job.JobSnapshot;
import java.util.Set;

/**
 * A lookup in the stored secondary index: the jobs indexed under any of {@code queues}, and under
 * any of {@code types}, and in any of {@code states}. A null set places no condition; at least
 * one set is given.
 */
public record IndexQuery(Set<String> queues, Set<String> types, Set<IndexEntry.State> states) {
  public IndexQuery {
    if (queues == null && types == null && states == null) {
      throw new IllegalArgumentException("an index query needs at least one term");
    }
  }

  /** Whether {@code job}'s record is one this query asks for. */
  public boolean matches(JobSnapshot job) {
    return (queues == null || queues.contains(job.queue()))
        && (types == null || types.contains(job.type()))
        && (states == null || states.contains(IndexEntry.State.of(job.status())));
  }
}

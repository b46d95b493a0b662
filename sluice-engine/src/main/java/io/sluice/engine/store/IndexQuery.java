package io.sluice.engine.store;

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
}

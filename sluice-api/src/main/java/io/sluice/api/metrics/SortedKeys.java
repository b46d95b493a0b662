package io.sluice.api.metrics;

import java.util.Arrays;
import java.util.Set;

/**
 * A published map's keys in sorted order, for a collector: sorted again only when the map hands
 * them out in another order than the last time, since thousands of budgets or queues rarely
 * change between two scrapes and sorting them was a tenth of a scrape. One per collector, used
 * under its lock.
 */
final class SortedKeys {
  /** The keys sorted, in an array of the caller's own, and whether they are the last call's. */
  record Keys(String[] sorted, boolean sameAsLast) {}

  private String[] lastMapOrder;
  private String[] lastSorted;

  Keys of(Set<String> keys) {
    String[] mapOrder = keys.toArray(String[]::new);
    if (Arrays.equals(mapOrder, lastMapOrder)) {
      return new Keys(lastSorted.clone(), true);
    }
    String[] sorted = mapOrder.clone();
    Arrays.sort(sorted);
    lastMapOrder = mapOrder;
    lastSorted = sorted;
    return new Keys(sorted.clone(), false);
  }

  /** A key read went missing from the map: the next call sorts again. */
  void forget() {
    lastMapOrder = null;
  }
}

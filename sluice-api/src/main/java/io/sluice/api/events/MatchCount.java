package io.sluice.api.events;

/**
 * How many jobs of a session's tab its search matches. Queue terms alone are answered from the
 * published counts at once; type terms need a walk over the tab's jobs in the selected queues,
 * so that count runs on a worker thread and is renewed at most every
 * {@link EventsSession#RECOUNT_MS} while the tab's count keeps changing.
 *
 * <p>Owned by the session's event loop.
 */
final class MatchCount {
  private final EventsFeed feed;
  /** Bumped when the tab or the search changes, so a count of the old ones is dropped. */
  private long generation;
  private boolean counting;
  private Long counted;
  private long countedAtMs;

  MatchCount(EventsFeed feed) {
    this.feed = feed;
  }

  /** The tab or the search changed: the last count no longer applies. */
  void forget() {
    generation++;
    counted = null;
    countedAtMs = 0;
  }

  /** Starts a count if one is needed: none yet, or {@code changed} and the last one is old. */
  void refresh(Tab tab, Search search, JobCounts counts, boolean changed) {
    if (search.types().isEmpty() || counting) {
      return;
    }
    long nowMs = feed.nowMs();
    if (counted != null && !(changed && nowMs - countedAtMs >= EventsSession.RECOUNT_MS)) {
      return;
    }
    counting = true;
    long countGeneration = generation;
    feed.vertx().executeBlocking(() -> feed.windows().countMatches(tab, search,
        counts.queues().keySet(), nowMs), false).onComplete(result -> {
          counting = false;
          // A count of an old tab or search is dropped; the next tick starts a new one.
          if (result.succeeded() && countGeneration == generation) {
            counted = result.result();
            countedAtMs = nowMs;
          }
        });
  }

  /** The number of matches, or null while there is no search or the count is not done. */
  Long matches(Tab tab, Search search, JobCounts counts) {
    if (search.isEmpty()) {
      return null;
    }
    if (search.types().isEmpty()) {
      return counts.inQueuesOf(search, tab.status());
    }
    return counted;
  }
}

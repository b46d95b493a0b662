package io.sluice.api.events;

/**
 * A message from an events client (docs/events.md). {@code ref} is the client's own number for
 * the request, echoed in the replies to it; null when the client sent none.
 */
sealed interface ClientMessage {
  Long ref();

  /** Show {@code tab}: a window of {@code limit} rows at {@code offset}, refreshed every tick. */
  record Subscribe(Long ref, Tab tab, long offset, int limit, Search search, long refreshMs)
      implements ClientMessage {}

  /** Move the window of the current tab to {@code offset}. */
  record Scroll(Long ref, long offset) implements ClientMessage {}

  /** Mark the jobs that {@code search} matches (an empty search clears the marks). */
  record SetSearch(Long ref, Search search) implements ClientMessage {}

  /** Move to the next (or previous) match after the job {@code from} at {@code fromOffset}. */
  record Find(Long ref, boolean forward, String from, long fromOffset) implements ClientMessage {}

  /** Stop (or resume) refreshing the window on changes; counts keep coming. */
  record Pause(Long ref, boolean paused) implements ClientMessage {}

  /** Send the kept throughput history now and each new second from then on. */
  record WatchThroughput(Long ref) implements ClientMessage {}

  /** Delete a job, as {@code DELETE /jobs/{id}} does. */
  record Delete(Long ref, String id) implements ClientMessage {}
}

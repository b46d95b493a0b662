package io.sluice.api.events;

import io.sluice.api.JobQueries;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.query.JobFilter;
import io.sluice.engine.store.JobStore;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * Reads job windows and search matches from the store, on a worker thread, through the same
 * status-filtered, index-backed walks as {@code GET /jobs?status=…}: jobs in id order, payloads
 * read only for the rows kept.
 *
 * <p>A window is found by walking from the nearest position already known: the start of the
 * list, its end, or the first job of the client's previous window (its anchor). Scrolling a page
 * or jumping to either end therefore reads about one page of jobs wherever the window is, and no
 * read costs more than the distance from the nearest of the three.
 */
final class WindowReads {
  /** Larger payloads are left out of windows (their size is sent instead). */
  static final int PAYLOAD_CAP_BYTES = 16 * 1024;

  private final JobQueries queries;

  WindowReads(JobQueries queries) {
    this.queries = queries;
  }

  /** What to read: the page of {@code limit} jobs at {@code target} in a list of {@code total}. */
  record Request(Tab tab, Search search, int limit, long target, JobWindow.Anchor anchor,
      long total, long nowMs) {}

  /** A search hit: the matching job and its position in the tab's list (an estimate). */
  record Found(JobId id, long offset) {}

  JobWindow read(Request request) {
    int limit = request.limit();
    long total = request.total();
    if (total == 0) {
      // Nothing to show, and a walk could pass every unfinished job of the other statuses.
      return new JobWindow(request.tab(), 0, 0, List.of());
    }
    long target = Math.max(0, Math.min(request.target(), total - limit));
    JobFilter filter = filterOf(request.tab());
    Walked walked;
    long fromStart = target;
    long fromEnd = total > limit ? total - limit - target : Long.MAX_VALUE;
    JobWindow.Anchor anchor = request.anchor();
    long fromAnchor = anchor == null ? Long.MAX_VALUE : Math.abs(target - anchor.offset());
    if (fromAnchor < fromStart && fromAnchor < fromEnd) {
      walked = fromAnchor(filter, anchor, target, limit, request.nowMs());
    } else if (fromEnd < fromStart) {
      walked = fromEnd(filter, total, limit, fromEnd, request.nowMs());
    } else {
      walked = forward(filter, null, 0, target, limit, request.nowMs());
    }
    if (walked.jobs().size() < limit && walked.offset() > 0) {
      // The list ended sooner than its count said (jobs left meanwhile): show its last page.
      walked = fromEnd(filter, total, limit, 0, request.nowMs());
    }
    return new JobWindow(request.tab(), walked.offset(), total,
        rows(walked.jobs(), request.search()));
  }

  /**
   * The next (or previous) job after {@code from} in the tab's list that {@code search} matches,
   * with its position counted from {@code fromOffset}; null when there is none.
   */
  Found find(Tab tab, Search search, JobId from, long fromOffset, boolean forward, long nowMs) {
    long passed = 0;
    try (JobStore.JobScan scan = queries.matches(filterOf(tab), from, !forward, nowMs)) {
      while (scan.hasNext()) {
        JobSnapshot job = scan.next();
        passed++;
        if (search.matches(job)) {
          return new Found(job.id(), Math.max(0, forward ? fromOffset + passed
              : fromOffset - passed));
        }
      }
    }
    return null;
  }

  /**
   * How many jobs in the tab match {@code search}. Only needed when the search has type terms
   * (queue terms alone are answered from the published counts); the queue terms still narrow
   * the walk to the queues among {@code knownQueues} that they select.
   */
  long countMatches(Tab tab, Search search, Iterable<String> knownQueues, long nowMs) {
    Set<String> queues = search.queuesAmong(knownQueues);
    if (queues != null && queues.isEmpty()) {
      return 0;
    }
    JobFilter filter = new JobFilter(null, queues, null, Set.of(tab.status()), null);
    long count = 0;
    try (JobStore.JobScan scan = queries.matches(filter, null, false, nowMs)) {
      while (scan.hasNext()) {
        if (search.matches(scan.next())) {
          count++;
        }
      }
    }
    return count;
  }

  private static JobFilter filterOf(Tab tab) {
    return new JobFilter(null, null, null, Set.of(tab.status()), null);
  }

  /** Jobs in list order and the position of the first. */
  private record Walked(List<JobSnapshot> jobs, long offset) {}

  /** The jobs after the first {@code skip} strictly after {@code after}, at {@code base}+skip. */
  private Walked forward(JobFilter filter, JobId after, long base, long skip, int limit,
      long nowMs) {
    Passed passed = walk(filter, after, false, skip, limit, nowMs);
    return new Walked(passed.last(), base + passed.seen() - passed.last().size());
  }

  /** The page that ends {@code skip} jobs before the end of a list of about {@code total}. */
  private Walked fromEnd(JobFilter filter, long total, int limit, long skip, long nowMs) {
    Passed passed = walk(filter, null, true, skip, limit, nowMs);
    List<JobSnapshot> jobs = new ArrayList<>(passed.last());
    Collections.reverse(jobs);
    boolean reachedStart = passed.seen() < skip + limit;
    return new Walked(jobs, reachedStart ? 0 : Math.max(0, total - passed.seen()));
  }

  private Walked fromAnchor(JobFilter filter, JobWindow.Anchor anchor, long target, int limit,
      long nowMs) {
    if (target >= anchor.offset()) {
      return forward(filter, justBefore(anchor.first()), anchor.offset(),
          target - anchor.offset(), limit, nowMs);
    }
    // Back from the anchor to the job at the target, then a page forward from it.
    Passed back = walk(filter, anchor.first(), true, anchor.offset() - target - 1, 1, nowMs);
    if (back.seen() < anchor.offset() - target) {
      return forward(filter, null, 0, 0, limit, nowMs); // reached the start sooner
    }
    JobId first = back.last().get(0).id();
    return forward(filter, justBefore(first), target, 0, limit, nowMs);
  }

  /** How many jobs a walk saw and the last {@code limit} of them, in walk order. */
  private record Passed(List<JobSnapshot> last, long seen) {}

  /**
   * Walks past {@code skip} matching jobs and keeps the next {@code limit}. It remembers the last
   * {@code limit} seen throughout, so a list that ends early still yields a full last page.
   */
  private Passed walk(JobFilter filter, JobId after, boolean descending, long skip, int limit,
      long nowMs) {
    ArrayDeque<JobSnapshot> last = new ArrayDeque<>(limit);
    long seen = 0;
    try (JobStore.JobScan scan = queries.matches(filter, after, descending, nowMs)) {
      while (seen < skip + limit && scan.hasNext()) {
        if (last.size() == limit) {
          last.removeFirst();
        }
        last.addLast(scan.next());
        seen++;
      }
    }
    return new Passed(List.copyOf(last), seen);
  }

  private List<JobWindow.Row> rows(List<JobSnapshot> jobs, Search search) {
    List<JobWindow.Row> rows = new ArrayList<>(jobs.size());
    for (JobSnapshot job : jobs) {
      byte[] payload = queries.payload(job.id());
      int size = payload == null ? 0 : payload.length;
      rows.add(new JobWindow.Row(job, size > PAYLOAD_CAP_BYTES ? null : payload, size,
          search.matches(job)));
    }
    return rows;
  }

  /** The id just below {@code id}, so a walk strictly after it starts at {@code id} itself. */
  static JobId justBefore(JobId id) {
    return id.lo() != 0 ? new JobId(id.hi(), id.lo() - 1) : new JobId(id.hi() - 1, -1L);
  }
}

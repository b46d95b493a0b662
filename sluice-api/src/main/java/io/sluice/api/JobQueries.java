package io.sluice.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.api.wire.Format;
import io.sluice.api.wire.PayloadFilter;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.query.JobFilter;
import io.sluice.engine.store.JobStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.TreeSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;

/**
 * Answers job listings and counts from the stored records, off the engine thread: records are
 * read from one store snapshot in id order and overlaid with the engine's live in-flight view
 * (dispatch is not written to disk), and a {@code scheduled} record whose time has come reads as
 * {@code ready}. Results are weakly consistent with jobs changing meanwhile, never torn records.
 */
final class JobQueries {
  /** One page of a listing, with what the links need. */
  record Page(List<JobSnapshot> jobs, boolean more) {}

  private final JobStore store;
  private final Map<JobId, Long> inFlight;

  JobQueries(JobStore store, Map<JobId, Long> inFlight) {
    this.store = store;
    this.inFlight = inFlight;
  }

  /** Up to {@code limit} matching jobs after {@code from}, with their payloads. */
  Page page(JobFilter filter, PayloadFilter payloadFilter, JobId from, boolean descending,
      int limit, long nowMs) {
    List<JobSnapshot> found = new ArrayList<>(Math.min(limit, 256));
    try (JobStore.JobScan scan = scan(filter, from, descending)) {
      while (scan.hasNext()) {
        JobSnapshot job = matching(scan.next(), filter, payloadFilter, true, nowMs);
        if (job == null) {
          continue;
        }
        if (found.size() == limit) {
          return new Page(found, true);
        }
        found.add(job);
      }
    }
    return new Page(found, false);
  }

  /** Ids of every matching job. */
  Set<JobId> ids(JobFilter filter, PayloadFilter payloadFilter, long nowMs) {
    Set<JobId> ids = new LinkedHashSet<>();
    try (JobStore.JobScan scan = scan(filter, null, false)) {
      while (scan.hasNext()) {
        JobSnapshot job = matching(scan.next(), filter, payloadFilter, false, nowMs);
        if (job != null) {
          ids.add(job.id());
        }
      }
    }
    return ids;
  }

  long count(JobFilter filter, PayloadFilter payloadFilter, long nowMs) {
    long count = 0;
    try (JobStore.JobScan scan = scan(filter, null, false)) {
      while (scan.hasNext()) {
        if (matching(scan.next(), filter, payloadFilter, false, nowMs) != null) {
          count++;
        }
      }
    }
    return count;
  }

  /**
   * The records to look at, in id order after {@code from}: point reads when the filter names
   * ids, else a paced scan of every stored record.
   */
  private JobStore.JobScan scan(JobFilter filter, JobId from, boolean descending) {
    if (filter.ids() == null) {
      return new PacedScan(store.scanJobs(from, descending));
    }
    TreeSet<JobId> ordered = new TreeSet<>(filter.ids());
    NavigableSet<JobId> after = from == null ? ordered
        : descending ? ordered.headSet(from, false) : ordered.tailSet(from, false);
    Iterator<JobId> ids = descending ? after.descendingIterator() : after.iterator();
    return new JobStore.JobScan() {
      private JobSnapshot next = advance();

      private JobSnapshot advance() {
        while (ids.hasNext()) {
          JobSnapshot job = store.readJob(ids.next());
          if (job != null) {
            return job;
          }
        }
        return null;
      }

      @Override
      public boolean hasNext() {
        return next != null;
      }

      @Override
      public JobSnapshot next() {
        if (next == null) {
          throw new NoSuchElementException();
        }
        JobSnapshot current = next;
        next = advance();
        return current;
      }

      @Override
      public void close() {}
    };
  }

  /** The live view of a stored record (with payload if asked) if it matches, else null. */
  private JobSnapshot matching(JobSnapshot stored, JobFilter filter,
      PayloadFilter payloadFilter, boolean withPayload, long nowMs) {
    JobSnapshot job = live(stored, nowMs);
    if (!filter.matches(job, nowMs)) {
      return null;
    }
    if (!withPayload && payloadFilter == null) {
      return job;
    }
    byte[] payload = store.readPayload(job.id());
    if (payload == null) {
      return null; // Deleted since the snapshot's record was read.
    }
    if (payloadFilter != null && !payloadFilter.matches(parse(payload))) {
      return null;
    }
    return job.withPayload(payload);
  }

  private JobSnapshot live(JobSnapshot stored, long nowMs) {
    Long dequeuedAtMs = inFlight.get(stored.id());
    if (dequeuedAtMs != null) {
      return stored.live(JobStatus.IN_FLIGHT, dequeuedAtMs);
    }
    if (stored.status().isTerminal()) {
      return stored;
    }
    JobStatus status = stored.readyAtMs() > nowMs ? JobStatus.SCHEDULED : JobStatus.READY;
    return stored.live(status, stored.dequeuedAtMs());
  }

  private static JsonNode parse(byte[] payload) {
    try {
      return Format.JSON.mapper().readTree(payload);
    } catch (IOException e) {
      return Format.JSON.mapper().nullNode();
    }
  }
}

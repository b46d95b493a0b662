package io.sluice.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.api.wire.Format;
import io.sluice.api.wire.PayloadFilter;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.query.JobFilter;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.IndexQuery;
import io.sluice.engine.store.JobScans;
import io.sluice.engine.store.JobStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.Map;

/**
 * Answers job listings and counts from the stored records, off the engine thread: records are
 * read from one store snapshot in id order (through the stored index when the filter names a
 * queue, type or status class) and overlaid with the engine's live in-flight view
 * (dispatch is not written to disk), and a {@code scheduled} record whose time has come reads as
 * {@code ready}. Results are weakly consistent with jobs changing meanwhile, never torn records.
 */
public final class JobQueries {
  private static final Set<JobStatus> UNFINISHED =
      EnumSet.of(JobStatus.SCHEDULED, JobStatus.READY, JobStatus.IN_FLIGHT);

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

  /**
   * Matching jobs in id order strictly after {@code after} (before it when descending), with
   * their live status and without payloads, for walks that pass over many jobs to reach a few
   * (the events feed's windows); the caller reads the payloads of the ones it keeps. Close it.
   */
  public JobStore.JobScan matches(JobFilter filter, JobId after, boolean descending,
      long nowMs) {
    JobStore.JobScan scan = scan(filter, after, descending);
    return JobScans.from(() -> {
      while (scan.hasNext()) {
        JobSnapshot job = matching(scan.next(), filter, null, false, nowMs);
        if (job != null) {
          return job;
        }
      }
      return null;
    }, scan::close);
  }

  /** The stored payload of a job, or null once it is gone. */
  public byte[] payload(JobId id) {
    return store.readPayload(id);
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
    IndexQuery indexed = indexQuery(filter);
    if (payloadFilter == null && indexed != null && answeredByIndex(filter)) {
      return countByIndex(filter, indexed, nowMs);
    }
    return countRecords(filter, payloadFilter, scan(filter, null, false), nowMs);
  }

  /**
   * Unfinished jobs are counted from index keys alone. Finished ones are read, because one past
   * its purge time is invisible at once but leaves the store only when the reaper next runs.
   */
  private long countByIndex(JobFilter filter, IndexQuery indexed, long nowMs) {
    Set<IndexEntry.State> states = indexed.states() == null
        ? EnumSet.allOf(IndexEntry.State.class) : EnumSet.copyOf(indexed.states());
    long count = 0;
    if (states.remove(IndexEntry.State.UNFINISHED)) {
      count += store.countJobs(new IndexQuery(indexed.queues(), indexed.types(),
          Set.of(IndexEntry.State.UNFINISHED)));
    }
    if (!states.isEmpty()) {
      IndexQuery finished = new IndexQuery(indexed.queues(), indexed.types(), states);
      count += countRecords(filter, null, new PacedScan(store.scanJobs(finished, null, false)),
          nowMs);
    }
    return count;
  }

  private long countRecords(JobFilter filter, PayloadFilter payloadFilter,
      JobStore.JobScan records, long nowMs) {
    long count = 0;
    try (JobStore.JobScan scan = records) {
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
   * ids or asks for in-flight jobs only (the engine's live view lists those), a walk of the
   * stored index when it filters by queue, type or a status class, else a scan of every record.
   * Scans are paced, so they never starve the dispatcher of CPU.
   */
  private JobStore.JobScan scan(JobFilter filter, JobId from, boolean descending) {
    if (filter.ids() != null) {
      return pointReads(new TreeSet<>(filter.ids()), from, descending);
    }
    if (filter.statuses() != null && filter.statuses().equals(Set.of(JobStatus.IN_FLIGHT))) {
      return pointReads(new TreeSet<>(inFlight.keySet()), from, descending);
    }
    IndexQuery indexed = indexQuery(filter);
    return new PacedScan(indexed == null
        ? store.scanJobs(from, descending)
        : store.scanJobs(indexed, from, descending));
  }

  /** The index terms that narrow {@code filter}, or null if it has none. */
  static IndexQuery indexQuery(JobFilter filter) {
    Set<IndexEntry.State> states = states(filter.statuses());
    if (filter.queues() == null && filter.types() == null && states == null) {
      return null;
    }
    return new IndexQuery(filter.queues(), filter.types(), states);
  }

  /** The index states holding jobs of these statuses; null when that is every state. */
  private static Set<IndexEntry.State> states(Set<JobStatus> statuses) {
    if (statuses == null) {
      return null;
    }
    Set<IndexEntry.State> states = EnumSet.noneOf(IndexEntry.State.class);
    for (JobStatus status : statuses) {
      states.add(IndexEntry.State.of(status));
    }
    return states.size() == IndexEntry.State.values().length ? null : states;
  }

  /**
   * True when the index terms are the whole filter: no id, range or budget condition, and a
   * status set made of whole index states (an unfinished job's live status needs its record).
   */
  static boolean answeredByIndex(JobFilter filter) {
    if (filter.ids() != null || filter.budgetKeys() != null || filter.priority() != null
        || filter.readyAt() != null || filter.attempts() != null) {
      return false;
    }
    Set<JobStatus> statuses = filter.statuses();
    return statuses == null || !statuses.contains(JobStatus.SCHEDULED)
        && !statuses.contains(JobStatus.READY) && !statuses.contains(JobStatus.IN_FLIGHT)
        || statuses.containsAll(UNFINISHED);
  }

  private JobStore.JobScan pointReads(NavigableSet<JobId> ordered, JobId from,
      boolean descending) {
    NavigableSet<JobId> after = from == null ? ordered
        : descending ? ordered.headSet(from, false) : ordered.tailSet(from, false);
    Iterator<JobId> ids = descending ? after.descendingIterator() : after.iterator();
    return JobScans.from(() -> {
      while (ids.hasNext()) {
        JobSnapshot job = store.readJob(ids.next());
        if (job != null) {
          return job;
        }
      }
      return null;
    }, () -> { });
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

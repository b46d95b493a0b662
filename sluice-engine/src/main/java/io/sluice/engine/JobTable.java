package io.sluice.engine;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.query.JobFilter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every job the server holds, by id, with the number of jobs per queue and status, so that
 * listing queues or counting never scans jobs; every status change goes through
 * {@link #status}. Type and queue names are shared through one cache. The counts of queues that
 * changed are published for other threads at the end of each turn and dispatch.
 *
 * <p>Owned by the engine thread.
 */
final class JobTable {
  /**
   * How long the table of jobs by id may stay {@linkplain JobsById#oversized oversized} before it
   * shrinks: long enough that a burst following a drained one finds the table still grown.
   */
  static final long SHRINK_AFTER_MS = 30_000;
  private static final long NOT_OVERSIZED = Long.MAX_VALUE;

  /** Replaced once, while empty, by a map sized for recovery. */
  private JobsById jobs = new JobsById();
  /** When the table was first seen oversized, or {@link #NOT_OVERSIZED}. */
  private long oversizedSinceMs = NOT_OVERSIZED;
  /** Queue → jobs per status, indexed by {@link JobStatus#ordinal}. */
  private final Map<String, long[]> counts = new HashMap<>();
  /**
   * Jobs in the table per status, over all queues: the sums of {@link #counts}, kept rather than
   * summed because an observer may read them after every turn (the server's heap compaction).
   */
  private final long[] totals = new long[JobStatus.COUNT];
  private final Set<String> changedQueues = new HashSet<>();
  /** The queue last added to {@link #changedQueues}: a turn mostly changes one queue's jobs. */
  private String lastChangedQueue;
  private final Map<String, QueueCounts> published;
  private final NameCache names = new NameCache();

  /** @param published where the counts are published; it outlives this table on a rebuild */
  JobTable(Map<String, QueueCounts> published) {
    this.published = published;
  }

  /**
   * Sizes the map for about {@code expectedJobs} before recovery fills it, so that a million
   * stored jobs are not rehashed twenty times over.
   */
  void expect(long expectedJobs) {
    if (jobs.isEmpty() && expectedJobs > 0) {
      // Only a hint: the estimate counts rewritten records again until compaction, so it is
      // capped (2M jobs, an 80 MiB table); beyond that the table grows as usual.
      jobs = new JobsById(Math.min(1 << 21, expectedJobs));
    }
  }

  /** The shared instance of a type or queue name. */
  String canonical(String name) {
    return names.canonical(name);
  }

  Job get(JobId id) {
    return id == null ? null : jobs.get(id);
  }

  /** The job unless it is unknown or past its purge time, which every API treats alike. */
  Job visible(JobId id, long nowMs) {
    Job job = get(id);
    if (job == null || job.isPurgedAt(nowMs)) {
      throw new SluiceException.NotFound("job not found");
    }
    return job;
  }

  void add(Job job) {
    Job replaced = jobs.put(job);
    if (replaced != null) {
      replaced.held(false);
    }
    job.held(true);
    count(job.queue(), job.status(), 1);
  }

  void remove(Job job) {
    Job removed = jobs.remove(job.id());
    if (removed != null) {
      removed.held(false);
    }
    count(job.queue(), job.status(), -1);
  }

  /**
   * Shrinks the table of jobs by id once it has been oversized for {@link #SHRINK_AFTER_MS}, as
   * seen by each turn's due work (after the turn's commands, before its commit).
   */
  void trim(long nowMs) {
    if (!jobs.oversized()) {
      oversizedSinceMs = NOT_OVERSIZED;
    } else if (oversizedSinceMs == NOT_OVERSIZED) {
      oversizedSinceMs = nowMs;
    } else if (nowMs - oversizedSinceMs >= SHRINK_AFTER_MS) {
      jobs.shrink();
      oversizedSinceMs = NOT_OVERSIZED;
    }
  }

  /** When {@link #trim} next has work, or {@link Long#MAX_VALUE}. */
  long nextTrimMs() {
    return oversizedSinceMs == NOT_OVERSIZED ? Long.MAX_VALUE : oversizedSinceMs + SHRINK_AFTER_MS;
  }

  /** Slots in the table of jobs by id, held or not (for tests). */
  int capacity() {
    return jobs.capacity();
  }

  /** The table is being replaced (a rollback): none of its jobs is held any more. */
  void discard() {
    for (Job job : jobs.values()) {
      job.held(false);
    }
  }

  /** Every change of a live job's status. */
  void status(Job job, JobStatus status) {
    long[] byStatus = counts.get(job.queue());
    if (byStatus == null) {
      // Not counted (not in the table): only the job itself changes.
      job.status(status);
      return;
    }
    byStatus[job.status().ordinal()]--;
    byStatus[status.ordinal()]++;
    totals[job.status().ordinal()]--;
    totals[status.ordinal()]++;
    job.status(status);
    changed(job.queue());
  }

  /** Moves the job to another queue; the caller has taken it off every queue-keyed index. */
  void moveToQueue(Job job, String queue) {
    if (!queue.equals(job.queue())) {
      count(job.queue(), job.status(), -1);
      job.queue(names.canonical(queue));
      count(job.queue(), job.status(), 1);
    }
  }

  private void count(String queue, JobStatus status, int delta) {
    long[] byStatus = counts.computeIfAbsent(queue, q -> new long[JobStatus.COUNT]);
    byStatus[status.ordinal()] += delta;
    totals[status.ordinal()] += delta;
    changed(queue);
    if (delta < 0 && isEmpty(byStatus)) {
      counts.remove(queue);
    }
  }

  private void changed(String queue) {
    if (queue != lastChangedQueue) {
      changedQueues.add(queue);
      lastChangedQueue = queue;
    }
  }

  private static boolean isEmpty(long[] byStatus) {
    for (long n : byStatus) {
      if (n != 0) {
        return false;
      }
    }
    return true;
  }

  /** Publishes the counts of every queue changed since the last call (engine thread). */
  void publish() {
    if (changedQueues.isEmpty()) {
      // Most turns change no count; on C1 even an empty set's iterator is an allocation.
      return;
    }
    for (String queue : changedQueues) {
      long[] c = counts.get(queue);
      if (c == null) {
        published.remove(queue);
      } else {
        published.put(queue, new QueueCounts(c[JobStatus.SCHEDULED.ordinal()],
            c[JobStatus.READY.ordinal()], c[JobStatus.IN_FLIGHT.ordinal()],
            c[JobStatus.COMPLETED.ordinal()], c[JobStatus.DEAD.ordinal()]));
      }
    }
    changedQueues.clear();
    lastChangedQueue = null;
  }

  /** Publishes every queue and drops what an earlier table published for queues not here. */
  void publishAll() {
    changedQueues.addAll(counts.keySet());
    published.keySet().retainAll(counts.keySet());
    publish();
  }

  Collection<Job> all() {
    return jobs.values();
  }

  int size() {
    return jobs.size();
  }

  /** Jobs in the table with this status, over all queues. */
  long total(JobStatus status) {
    return totals[status.ordinal()];
  }

  /** Jobs matching the filter; {@code ids}, when given, come from a payload query and narrow it. */
  List<Job> selected(JobFilter filter, Set<JobId> ids, long nowMs) {
    List<Job> chosen = new ArrayList<>();
    if (ids != null) {
      for (JobId id : ids) {
        Job job = jobs.get(id);
        if (job != null && filter.matches(job, nowMs)) {
          chosen.add(job);
        }
      }
      return chosen;
    }
    for (Job job : jobs.values()) {
      if (filter.matches(job, nowMs)) {
        chosen.add(job);
      }
    }
    return chosen;
  }

  /** Queue names of every stored job, in byte order (API.md §8.8). */
  List<String> queueNames() {
    return counts.keySet().stream().sorted(Names.BYTE_ORDER).toList();
  }
}

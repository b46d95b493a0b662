package io.sluice.engine;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.query.JobFilter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every job the server holds, by id, with the number of jobs per queue so that listing queues
 * never scans jobs. Type and queue names are shared through one cache.
 *
 * <p>Owned by the engine thread.
 */
final class JobTable {
  /** Replaced once, while empty, by a map sized for recovery. */
  private Map<JobId, Job> jobs = new HashMap<>();
  private final Map<String, Integer> queueSizes = new HashMap<>();
  private final NameCache names = new NameCache();

  /**
   * Sizes the map for about {@code expectedJobs} before recovery fills it, so that a million
   * stored jobs are not rehashed twenty times over.
   */
  void expect(long expectedJobs) {
    if (jobs.isEmpty() && expectedJobs > 0) {
      // Only a hint: the estimate counts rewritten records again until compaction, so it is
      // capped (16M jobs, a 64 MiB table); beyond that the map grows as usual.
      jobs = new HashMap<>((int) Math.min(1 << 24, expectedJobs * 4 / 3 + 16));
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
    jobs.put(job.id(), job);
    queueSizes.merge(job.queue(), 1, Integer::sum);
  }

  void remove(Job job) {
    jobs.remove(job.id());
    countOut(job.queue());
  }

  /** Moves the job to another queue; the caller has taken it off every queue-keyed index. */
  void moveToQueue(Job job, String queue) {
    if (!queue.equals(job.queue())) {
      countOut(job.queue());
      job.queue(names.canonical(queue));
      queueSizes.merge(job.queue(), 1, Integer::sum);
    }
  }

  private void countOut(String queue) {
    queueSizes.computeIfPresent(queue, (q, n) -> n == 1 ? null : n - 1);
  }

  Collection<Job> all() {
    return jobs.values();
  }

  int size() {
    return jobs.size();
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
    return queueSizes.keySet().stream().sorted(Names.BYTE_ORDER).toList();
  }
}

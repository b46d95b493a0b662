package io.sluice.engine.query;

import io.sluice.engine.job.Binding;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import java.util.List;
import java.util.Set;

/**
 * The job filters of API.md §7.2 that need no payload, ANDed; a null set or range means "no
 * filter". A job past its purge time never matches. (The jq {@code filter} on payloads is applied
 * by the caller, which has the payloads.) {@code budgetPartitions} (X3) narrows
 * {@code budgetKeys}: a job matches when one binding names one of the keys and one of the
 * partitions.
 */
public record JobFilter(Set<JobId> ids, Set<String> queues, Set<String> types,
    Set<JobStatus> statuses, Set<String> budgetKeys, Range priority, Range readyAt,
    Range attempts, Set<String> budgetPartitions) {
  public static final JobFilter ALL =
      new JobFilter(null, null, null, null, null, null, null, null, null);

  /** A filter that names no partition. */
  public JobFilter(Set<JobId> ids, Set<String> queues, Set<String> types,
      Set<JobStatus> statuses, Set<String> budgetKeys, Range priority, Range readyAt,
      Range attempts) {
    this(ids, queues, types, statuses, budgetKeys, priority, readyAt, attempts, null);
  }

  /** A filter of set-valued parameters only. */
  public JobFilter(Set<JobId> ids, Set<String> queues, Set<String> types,
      Set<JobStatus> statuses, Set<String> budgetKeys) {
    this(ids, queues, types, statuses, budgetKeys, null, null, null, null);
  }

  public boolean matches(Job job, long nowMs) {
    return !job.isPurgedAt(nowMs) && matches(job.id(), job.queue(), job.type(), job.status(),
        job.priority(), job.readyAtMs(), job.attempts(), job.budgets());
  }

  /** For a snapshot whose status is already the live one. */
  public boolean matches(JobSnapshot job, long nowMs) {
    boolean purged = job.purgeAtMs() != Job.NONE && job.purgeAtMs() <= nowMs;
    return !purged && matches(job.id(), job.queue(), job.type(), job.status(), job.priority(),
        job.readyAtMs(), job.attempts(), job.budgets());
  }

  private boolean matches(JobId id, String queue, String type, JobStatus status, int jobPriority,
      long readyAtMs, int attemptCount, List<Binding> budgets) {
    if (ids != null && !ids.contains(id)) {
      return false;
    }
    if (queues != null && !queues.contains(queue)) {
      return false;
    }
    if (types != null && !types.contains(type)) {
      return false;
    }
    if (statuses != null && !statuses.contains(status)) {
      return false;
    }
    if (priority != null && !priority.contains(jobPriority)) {
      return false;
    }
    if (readyAt != null && !readyAt.contains(readyAtMs)) {
      return false;
    }
    if (attempts != null && !attempts.contains(attemptCount)) {
      return false;
    }
    if (budgetKeys != null) {
      for (Binding binding : budgets) {
        if (budgetKeys.contains(binding.key()) && (budgetPartitions == null
            || binding.partition() != null && budgetPartitions.contains(binding.partition()))) {
          return true;
        }
      }
      return false;
    }
    return true;
  }
}

package io.sluice.engine.query;

import io.sluice.engine.budget.Binding;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import java.util.Set;

/**
 * The set-valued job filters of API.md §7.2, ANDed; a null set means "no filter". A job past its
 * purge time never matches.
 */
public record JobFilter(Set<JobId> ids, Set<String> queues, Set<String> types,
    Set<JobStatus> statuses, Set<String> budgetKeys) {
  public static final JobFilter ALL = new JobFilter(null, null, null, null, null);

  public boolean matches(Job job, long nowMs) {
    if (job.isPurgedAt(nowMs)) {
      return false;
    }
    if (ids != null && !ids.contains(job.id())) {
      return false;
    }
    if (queues != null && !queues.contains(job.queue())) {
      return false;
    }
    if (types != null && !types.contains(job.type())) {
      return false;
    }
    if (statuses != null && !statuses.contains(job.status())) {
      return false;
    }
    if (budgetKeys != null) {
      for (Binding binding : job.budgets()) {
        if (budgetKeys.contains(binding.key())) {
          return true;
        }
      }
      return false;
    }
    return true;
  }
}

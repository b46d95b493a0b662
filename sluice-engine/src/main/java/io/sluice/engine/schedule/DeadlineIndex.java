package io.sluice.engine.schedule;

import io.sluice.engine.job.Job;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * Jobs ordered by a deadline (then id), so the engine can sleep until the earliest one instead of
 * scanning. Used for scheduled jobs (by ready_at) and retained terminal jobs (by purge_at).
 *
 * <p>Owned by the engine thread. A job must be removed before its deadline field changes.
 */
public final class DeadlineIndex {
  private final TreeSet<Job> jobs;
  private final ToLongFunction<Job> deadline;

  public DeadlineIndex(ToLongFunction<Job> deadline) {
    this.deadline = deadline;
    this.jobs = new TreeSet<>(Comparator.<Job>comparingLong(deadline).thenComparing(Job::id));
  }

  public void add(Job job) {
    jobs.add(job);
  }

  public boolean remove(Job job) {
    return jobs.remove(job);
  }

  /** The earliest deadline, or {@link Long#MAX_VALUE} when empty. */
  public long earliestMs() {
    return jobs.isEmpty() ? Long.MAX_VALUE : deadline.applyAsLong(jobs.first());
  }

  /** Removes and returns up to {@code max} jobs whose deadline is at or before {@code nowMs}. */
  public List<Job> pollDue(long nowMs, int max) {
    if (earliestMs() > nowMs) {
      // The common case, asked at every engine turn: nothing made for it.
      return List.of();
    }
    List<Job> due = new ArrayList<>();
    while (due.size() < max && !jobs.isEmpty() && deadline.applyAsLong(jobs.first()) <= nowMs) {
      due.add(jobs.pollFirst());
    }
    return due;
  }

  /** Every job, earliest deadline first (a copy). */
  public List<Job> inOrder() {
    return new ArrayList<>(jobs);
  }

  public int size() {
    return jobs.size();
  }
}

package io.sluice.engine;

import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.dispatch.Dispatcher;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.schedule.DeadlineIndex;
import java.util.List;

/**
 * Where each live job waits. A job is in exactly one of: the scheduled index (by ready_at), the
 * dispatcher (ready: its ready index, or its budgets' waiting queues when bound), a stream's
 * in-flight set, the retained index (finished, by purge_at), or none of them while its enqueue
 * awaits commit. Every move between them goes through here.
 *
 * <p>Owned by the engine thread.
 */
final class Placement {
  private final DeadlineIndex scheduled = new DeadlineIndex(Job::readyAtMs);
  private final DeadlineIndex retained = new DeadlineIndex(Job::purgeAtMs);
  private final JobTable jobs;
  private final Dispatcher dispatcher;
  private final BudgetBook budgets;

  Placement(JobTable jobs, Dispatcher dispatcher, BudgetBook budgets) {
    this.jobs = jobs;
    this.dispatcher = dispatcher;
    this.budgets = budgets;
  }

  /** A queued job takes its place by its ready time: scheduled, or ready now. */
  void place(Job job, long nowMs) {
    if (job.readyAtMs() > nowMs) {
      schedule(job);
    } else {
      makeReady(job, nowMs);
    }
  }

  /** The job waits for its ready time, even one already past (the next due pass promotes it). */
  void schedule(Job job) {
    jobs.status(job, JobStatus.SCHEDULED);
    scheduled.add(job);
  }

  void makeReady(Job job, long nowMs) {
    jobs.status(job, JobStatus.READY);
    dispatcher.enter(job, nowMs);
  }

  /** Takes a queued job off the scheduled index or out of dispatch. */
  void unplace(Job job, long nowMs) {
    if (job.status() == JobStatus.SCHEDULED) {
      scheduled.remove(job);
    } else {
      dispatcher.leave(job, nowMs);
    }
  }

  /** The job stops being in flight: its stream slot and its concurrency tokens come back. */
  void leaveFlight(Job job, long nowMs) {
    dispatcher.release(job);
    budgets.release(job, nowMs);
  }

  /** The same for a job that succeeded, whose worker the dispatcher then counts as awake. */
  void leaveFlightSucceeded(Job job, long nowMs) {
    dispatcher.succeeded(job, nowMs);
    budgets.release(job, nowMs);
  }

  /** A finished job waits for its purge time. */
  void retain(Job job) {
    retained.add(job);
  }

  /** Takes a job out of whatever index, stream or budget holds it, before it is forgotten. */
  void detach(Job job, long nowMs) {
    switch (job.status()) {
      case READY, SCHEDULED -> unplace(job, nowMs);
      case IN_FLIGHT -> leaveFlight(job, nowMs);
      case COMPLETED, DEAD -> retained.remove(job);
    }
    if (!job.status().isTerminal()) {
      budgets.untrack(job);
    }
  }

  /** Up to {@code max} scheduled jobs whose ready time has come, taken off the index. */
  List<Job> dueScheduled(long nowMs, int max) {
    return scheduled.pollDue(nowMs, max);
  }

  /** Up to {@code max} finished jobs whose purge time has come, taken off the index. */
  List<Job> dueRetained(long nowMs, int max) {
    return retained.pollDue(nowMs, max);
  }

  long nextReadyAtMs() {
    return scheduled.earliestMs();
  }

  long nextPurgeAtMs() {
    return retained.earliestMs();
  }

  boolean retainsAny() {
    return retained.size() > 0;
  }

  List<Job> scheduledInOrder() {
    return scheduled.inOrder();
  }

  List<Job> retainedInOrder() {
    return retained.inOrder();
  }
}

package io.sluice.engine;

import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.job.Job;
import java.util.List;

/**
 * The work that time makes due, done once per turn: cron fires, scheduled jobs whose ready time
 * came, budget heads whose drip now pays, the reaper, and shrinking a drained job table. Also
 * tells the loop how long it may sleep.
 *
 * <p>Runs on the engine thread.
 */
final class DueWork {
  private final CronAdmin crons;
  private final CronFiring firing;
  private final Placement placement;
  private final BudgetBook budgets;
  private final Reaper reaper;
  private final JobTable jobs;
  private final int schedulerBatchSize;

  DueWork(CronAdmin crons, CronFiring firing, Placement placement, BudgetBook budgets, Reaper reaper,
      JobTable jobs, int schedulerBatchSize) {
    this.crons = crons;
    this.firing = firing;
    this.placement = placement;
    this.budgets = budgets;
    this.reaper = reaper;
    this.jobs = jobs;
    this.schedulerBatchSize = schedulerBatchSize;
  }

  /** The earliest instant at which {@link #run} has work, or {@link Long#MAX_VALUE}. */
  long nextDeadlineMs() {
    long next = Math.min(placement.nextReadyAtMs(), budgets.nextWakeMs());
    next = Math.min(next, crons.nextFireMs());
    next = Math.min(next, jobs.nextTrimMs());
    return Math.min(next, reaper.nextDeadlineMs());
  }

  void run(long nowMs) {
    // First: it cannot fail, and a failure of the work below must not keep the table grown.
    jobs.trim(nowMs);
    firing.fireDue(nowMs);
    // Indexed loops at every turn: on C1 an iterator is an allocation, even over nothing.
    List<Job> due = placement.dueScheduled(nowMs, schedulerBatchSize);
    for (int i = 0; i < due.size(); i++) {
      placement.makeReady(due.get(i), nowMs);
    }
    budgets.runDue(nowMs);
    reaper.runDue(nowMs);
  }
}

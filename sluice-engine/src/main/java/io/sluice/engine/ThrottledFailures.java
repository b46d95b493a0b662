package io.sluice.engine;

import io.sluice.engine.job.Binding;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.Throttle;
import io.sluice.engine.store.Mutation;

/**
 * A failure the worker reports as throttled (X6): a downstream service told it to back off. The
 * budget it names is paused exactly as {@code POST /budgets/{key}/pause {"for_ms": …}} would
 * pause it (for a partitioned budget, X3, the partition the job's binding draws on, as
 * {@code POST /budgets/{key}/partitions/{partition}/pause} would), and the job goes back to ready
 * at once. Its (priority, id) is unchanged, so it keeps
 * its place ahead of every job that was behind it, in its budgets and in the ready index. The
 * attempt is not counted, so the retry limit and the backoff see nothing; the time_based tokens
 * it paid stay spent (the downstream call happened), while leaving flight gives back its
 * while_in_flight slots as any failure does.
 *
 * <p>Runs on the engine thread.
 */
final class ThrottledFailures {
  private final BudgetAdmin budgetAdmin;
  private final Placement placement;
  private final UniqueClaims claims;
  private final Writes writes;
  private final EngineObserver observer;

  ThrottledFailures(BudgetAdmin budgetAdmin, Placement placement, UniqueClaims claims,
      Writes writes, EngineObserver observer) {
    this.budgetAdmin = budgetAdmin;
    this.placement = placement;
    this.claims = claims;
    this.writes = writes;
    this.observer = observer;
  }

  /** {@code job} is in flight and {@code report} carries a throttle; refused before any change. */
  JobSnapshot fail(Job job, FailureReport report, long nowMs) {
    Throttle throttle = report.throttle();
    check(job, report);
    // Paused before the job leaves flight, so neither the slots it gives back nor its return to
    // ready can let anything bound to the budget through.
    Binding binding = job.binding(throttle.budget());
    if (binding.partition() == null) {
      budgetAdmin.pause(throttle.budget(), throttle.retryAfterMs(), null, nowMs);
    } else {
      budgetAdmin.pausePartition(throttle.budget(), binding.partition(),
          throttle.retryAfterMs(), null, nowMs);
    }
    placement.leaveFlight(job, nowMs);
    int sequence = job.errorRecords() + 1;
    job.errorRecords(sequence);
    job.failedAtMs(nowMs);
    // The attempt in progress is tried again under the same number.
    writes.write(new Mutation.PutError(job.id(), new ErrorRecord(sequence, job.attempts() + 1,
        report.message(), report.errorType(), report.backtrace(), job.dequeuedAtMs(), nowMs,
        true)));
    observer.failed(job.queue(), Completions.ranMs(job, nowMs), false);
    placement.makeReady(job, nowMs);
    claims.retakeIfFree(job);
    JobSnapshot snapshot = job.snapshot(false);
    writes.write(JobWrites.put(job, snapshot, JobWrites.storedEntry(job)));
    return snapshot;
  }

  /** Refuses a throttle that contradicts the report or names a budget the job is not bound to. */
  static void check(Job job, FailureReport report) {
    if (report.kill()) {
      throw new SluiceException.Unprocessable(
          "throttle cannot be combined with kill: a throttled job is always retried");
    }
    if (report.retryAtMs() != null) {
      throw new SluiceException.Unprocessable(
          "throttle cannot be combined with retry_at: the budget's pause decides the retry");
    }
    String key = report.throttle().budget();
    Binding binding = job.binding(key);
    if (binding == null) {
      throw new SluiceException.Unprocessable("job is not bound to budget " + key);
    }
    String partitionProblem = binding.partitionProblem(report.throttle().partition());
    if (partitionProblem != null) {
      throw new SluiceException.Unprocessable(partitionProblem);
    }
  }
}

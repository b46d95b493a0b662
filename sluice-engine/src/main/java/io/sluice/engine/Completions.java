package io.sluice.engine;

import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.budget.JobSettlement;
import io.sluice.engine.budget.Settlement;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.Mutation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a worker reports about a job it holds (API.md §8.5–§8.7): success, which completes it, or
 * failure, which schedules a retry with backoff or kills it once its retries are spent. Either
 * way the job leaves flight, and a finished one is retained or forgotten per its retention. A
 * failure reported as throttled (X6) goes to {@link ThrottledFailures}. Either may settle what
 * the job really cost on its budgets (X5), all or nothing: a refused settlement acknowledges
 * nothing.
 *
 * <p>Runs on the engine thread.
 */
final class Completions {
  private final EngineConfig config;
  private final JobTable jobs;
  private final Placement placement;
  private final BudgetBook budgets;
  private final UniqueClaims claims;
  private final PayloadCache payloads;
  private final JobRemoval removal;
  private final Writes writes;
  private final EngineObserver observer;
  private final ThrottledFailures throttled;
  private final Settling settling;

  Completions(EngineConfig config, JobTable jobs, Placement placement, BudgetBook budgets,
      UniqueClaims claims, PayloadCache payloads, JobRemoval removal, Writes writes,
      EngineObserver observer, ThrottledFailures throttled) {
    this.config = config;
    this.jobs = jobs;
    this.placement = placement;
    this.budgets = budgets;
    this.claims = claims;
    this.payloads = payloads;
    this.removal = removal;
    this.writes = writes;
    this.observer = observer;
    this.throttled = throttled;
    this.settling = new Settling(jobs, budgets);
  }

  void complete(JobId id, List<Settlement> settlements, long nowMs) {
    Job job = inFlight(id);
    settling.check(job, settlements, "");
    settling.apply(job, settlements, nowMs);
    complete(job, nowMs);
  }

  /**
   * Completes every id that is in flight, settling those {@code settlements} name; returns the
   * ids that were not in flight, in request order.
   */
  List<String> completeAll(AckedIds ids, List<JobSettlement> settlements, long nowMs) {
    Map<JobId, List<Settlement>> settled = settling.checkBulk(ids, settlements);
    List<String> notFound = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      JobId id = ids.id(i);
      Job job = id == null ? null : jobs.get(id);
      if (job == null || job.status() != JobStatus.IN_FLIGHT) {
        notFound.add(ids.text(i));
      } else {
        settling.apply(job, settled.getOrDefault(id, List.of()), nowMs);
        complete(job, nowMs);
      }
    }
    return notFound;
  }

  private void complete(Job job, long nowMs) {
    observer.completed(job.queue(), ranMs(job, nowMs));
    placement.leaveFlightSucceeded(job, nowMs);
    long retentionMs = effective(job.retention() == null ? null : job.retention().completedMs(),
        config.defaultCompletedRetentionMs());
    finish(job, JobStatus.COMPLETED, retentionMs, nowMs);
  }

  JobSnapshot fail(JobId id, FailureReport report, List<Settlement> settlements, long nowMs) {
    Job job = inFlight(id);
    settling.check(job, settlements, "");
    if (report.throttle() != null) {
      ThrottledFailures.check(job, report);
      settling.apply(job, settlements, nowMs);
      return throttled.fail(job, report, nowMs);
    }
    settling.apply(job, settlements, nowMs);
    placement.leaveFlight(job, nowMs);
    int attempts = job.attempts() + 1;
    job.attempts(attempts);
    int sequence = job.errorRecords() + 1;
    job.errorRecords(sequence);
    job.failedAtMs(nowMs);
    writes.write(new Mutation.PutError(job.id(), new ErrorRecord(sequence, attempts,
        report.message(), report.errorType(), report.backtrace(), job.dequeuedAtMs(), nowMs,
        false)));
    int retryLimit = job.retryLimit() != null ? job.retryLimit() : config.defaultRetryLimit();
    boolean dead = report.kill() || (report.retryAtMs() == null && attempts > retryLimit);
    observer.failed(job.queue(), ranMs(job, nowMs), dead);
    if (dead) {
      long retentionMs = effective(job.retention() == null ? null : job.retention().deadMs(),
          config.defaultDeadRetentionMs());
      finish(job, JobStatus.DEAD, retentionMs, nowMs);
      return job.snapshot(false);
    }
    long retryAtMs;
    if (report.retryAtMs() != null) {
      retryAtMs = report.retryAtMs();
    } else {
      BackoffPolicy backoff = job.backoff() != null ? job.backoff() : config.defaultBackoff();
      retryAtMs = saturatingAdd(nowMs, backoff.delayMs(attempts, report.jitterUniform()));
    }
    job.readyAtMs(retryAtMs);
    // Always scheduled first (API.md §4.3, §8.7): a retry_at that is already due is promoted by
    // this same turn's due pass, so the job is dispatchable at once.
    placement.schedule(job);
    claims.retakeIfFree(job);
    JobSnapshot snapshot = job.snapshot(false);
    writes.write(JobWrites.put(job, snapshot, JobWrites.storedEntry(job)));
    return snapshot;
  }

  static long ranMs(Job job, long nowMs) {
    return Math.max(0, nowMs - job.dequeuedAtMs());
  }

  private Job inFlight(JobId id) {
    Job job = jobs.get(id);
    if (job == null || job.status() != JobStatus.IN_FLIGHT) {
      throw new SluiceException.NotFound("job not found in in-flight set");
    }
    return job;
  }

  private void finish(Job job, JobStatus terminal, long retentionMs, long nowMs) {
    IndexEntry stored = JobWrites.storedEntry(job);
    payloads.take(job);
    budgets.untrack(job);
    jobs.status(job, terminal);
    claims.finished(job);
    if (terminal == JobStatus.COMPLETED) {
      job.completedAtMs(nowMs);
    }
    if (retentionMs == 0) {
      removal.forget(job, stored);
      return;
    }
    job.purgeAtMs(saturatingAdd(nowMs, retentionMs));
    placement.retain(job);
    writes.write(JobWrites.put(job, job.snapshot(false), stored));
  }

  private static long effective(Long override, long serverDefault) {
    return override != null ? override : serverDefault;
  }

  /** {@code a + b} for a non-negative {@code b}, at most {@link Long#MAX_VALUE} ("never"). */
  static long saturatingAdd(long a, long b) {
    long sum = a + b;
    return sum < a ? Long.MAX_VALUE : sum;
  }
}

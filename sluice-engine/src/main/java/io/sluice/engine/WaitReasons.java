package io.sluice.engine;

import io.sluice.engine.budget.Availability;
import io.sluice.engine.budget.Budget;
import io.sluice.engine.budget.Pool;
import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.budget.StrategyType;
import io.sluice.engine.budget.TokenBucket;
import io.sluice.engine.job.Binding;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RankedJobs;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers "why is this job waiting?" (X2) from the budgets' waiting queues and buckets, counting
 * the jobs ahead in every queue (docs/decisions.md). A ready bound job is eligible when it heads
 * at least one of its budgets and all of them can pay (BUDGETS.md §5.2): when it heads none,
 * every budget holds it back for the jobs ahead of it; otherwise only the budgets that cannot
 * pay do.
 *
 * <p>Runs on the engine thread; the rank of a job in each waiting queue is found in logarithmic
 * time.
 */
final class WaitReasons {
  private final JobTable jobs;
  private final BudgetBook budgets;

  WaitReasons(JobTable jobs, BudgetBook budgets) {
    this.jobs = jobs;
    this.budgets = budgets;
  }

  JobWait explain(JobId id, long nowMs) {
    Job job = jobs.visible(id, nowMs);
    return switch (job.status()) {
      case SCHEDULED -> answer(job, nowMs, JobWait.WaitingFor.READY_AT, List.of());
      case IN_FLIGHT, COMPLETED, DEAD -> answer(job, nowMs, null, List.of());
      case READY -> job.budgets().isEmpty()
          ? answer(job, nowMs, JobWait.WaitingFor.WORKER, List.of())
          : boundReady(job, nowMs);
    };
  }

  private JobWait boundReady(Job job, long nowMs) {
    List<RankedJobs.Ahead> aheads = new ArrayList<>();
    boolean headsAny = false;
    for (Binding binding : job.budgets()) {
      RankedJobs.Ahead ahead = budgets.poolOf(binding).ahead(job);
      aheads.add(ahead);
      headsAny |= ahead.jobs() == 0;
    }
    List<JobWait.BudgetWait> parts = new ArrayList<>();
    boolean blocked = false;
    for (int i = 0; i < job.budgets().size(); i++) {
      Binding binding = job.budgets().get(i);
      JobWait.BudgetWait part = part(budgets.poolOf(binding), binding.cost(), aheads.get(i),
          headsAny, nowMs);
      blocked |= part.blocking();
      parts.add(part);
    }
    return answer(job, nowMs,
        blocked ? JobWait.WaitingFor.BUDGETS : JobWait.WaitingFor.WORKER, parts);
  }

  private static JobWait.BudgetWait part(Pool pool, long cost, RankedJobs.Ahead ahead,
      boolean headsAny, long nowMs) {
    Budget budget = pool.budget();
    TokenBucket bucket = pool.bucket();
    JobWait.Reason reason;
    if (!headsAny) {
      reason = JobWait.Reason.QUEUE;
    } else if (bucket.pausedAt(nowMs)) {
      reason = JobWait.Reason.PAUSED;
    } else if (bucket.nextAvailable(cost, nowMs).kind() == Availability.Kind.NOW) {
      reason = null;
    } else if (bucket.debtAt(nowMs) > 0) {
      reason = JobWait.Reason.DEBT;
    } else if (budget.policy().type() == StrategyType.TIME_BASED) {
      reason = JobWait.Reason.TOKENS;
    } else {
      reason = JobWait.Reason.CONCURRENCY;
    }
    Long availableAt = null;
    if (reason != null && budget.policy().type() == StrategyType.TIME_BASED) {
      // Behind others, the tokens for all of them come first; heading its way through another
      // budget, the job needs only its own. Tokens already there (the job waits only for the
      // jobs ahead to go) are available now.
      long needed = reason == JobWait.Reason.QUEUE ? ahead.cost() + cost : cost;
      Long accrued = bucket.accrualAt(needed, nowMs);
      availableAt = accrued != null ? accrued : nowMs;
    }
    return new JobWait.BudgetWait(budget.key(), pool.partition(), cost, reason != null, reason,
        bucket.tokensAt(nowMs), ahead.jobs(), ahead.cost(), availableAt);
  }

  private static JobWait answer(Job job, long nowMs, JobWait.WaitingFor waitingFor,
      List<JobWait.BudgetWait> parts) {
    Long estimate = null;
    boolean allTimed = true;
    for (JobWait.BudgetWait part : parts) {
      if (part.blocking()) {
        if (part.availableAtMs() == null) {
          allTimed = false;
        } else if (estimate == null || part.availableAtMs() > estimate) {
          estimate = part.availableAtMs();
        }
      }
    }
    return new JobWait(job.snapshot(false), nowMs, waitingFor, List.copyOf(parts),
        allTimed ? estimate : null);
  }
}

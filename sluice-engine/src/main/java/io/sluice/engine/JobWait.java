package io.sluice.engine;

import io.sluice.engine.job.JobSnapshot;
import java.util.List;
import java.util.Locale;

/**
 * Why a job is not running yet, and when it could (X2): what it waits for, and per budget binding
 * whether that budget holds it back, why, how much is ahead of it and when the tokens it needs
 * will have accrued.
 *
 * @param waitingFor null when the job is in flight, completed or dead
 * @param budgets one entry per binding while the job is ready; empty otherwise
 * @param estimatedDispatchAtMs the latest {@code availableAtMs} over blocking budgets when every
 *     one of them is time_based; else null
 */
public record JobWait(JobSnapshot job, long asOfMs, WaitingFor waitingFor,
    List<BudgetWait> budgets, Long estimatedDispatchAtMs) {

  public enum WaitingFor {
    /** Scheduled: its ready_at has not come. */
    READY_AT,
    /** Ready, and at least one of its budgets holds it back. */
    BUDGETS,
    /** Ready, and no budget holds it back: a worker of its queue with room takes it. */
    WORKER;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Why one budget holds a job back. */
  public enum Reason {
    /** Other jobs of the budget come first (strict FIFO per budget). */
    QUEUE,
    /** time_based, the job heads the budget, and the tokens are not there yet. */
    TOKENS,
    /** while_in_flight, the job heads the budget, and the slots are taken. */
    CONCURRENCY,
    /** while_in_flight after a shrink: finishing jobs pay the debt before any slot frees. */
    DEBT,
    /** The budget is paused (X6). */
    PAUSED;

    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One binding's part.
   *
   * @param reason null when this budget does not hold the job back
   * @param availableAtMs time_based and holding the job back: when the tokens for everything
   *     ahead plus this job will have accrued if nothing else spends; else null
   */
  public record BudgetWait(String key, String partition, long cost, boolean blocking,
      Reason reason, long tokens, long aheadJobs, long aheadCost, Long availableAtMs) {

    /** A binding to a plain budget. */
    public BudgetWait(String key, long cost, boolean blocking, Reason reason, long tokens,
        long aheadJobs, long aheadCost, Long availableAtMs) {
      this(key, null, cost, blocking, reason, tokens, aheadJobs, aheadCost, availableAtMs);
    }
  }
}

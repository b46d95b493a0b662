package io.sluice.engine.job;

/** One element of an enqueue's answer: the job, and whether it was created, found or folded. */
public record Enqueued(JobSnapshot job, boolean duplicate, boolean folded) {
  public boolean created() {
    return !duplicate && !folded;
  }
}

package io.sluice.engine.job;

import io.sluice.engine.job.Binding;
import java.util.List;

/**
 * An immutable copy of a job's state, safe to hand to other threads. {@code payload} is the
 * canonical JSON payload when the engine had it in memory, else null (read it from the store).
 * Time fields use {@link Job#NONE} for "not set". {@code budgets} lists the job's bindings in
 * binding order (empty when it has none). {@code errorRecords} is how many error records the job
 * has: its attempts, plus one for each throttled failure (X6), which does not count an attempt.
 */
public record JobSnapshot(
    JobId id,
    String type,
    String queue,
    int priority,
    JobStatus status,
    long readyAtMs,
    int attempts,
    Integer retryLimit,
    BackoffPolicy backoff,
    RetentionPolicy retention,
    long dequeuedAtMs,
    long failedAtMs,
    long completedAtMs,
    long purgeAtMs,
    byte[] payload,
    List<Binding> budgets,
    UniqueKey unique,
    BatchConfig batch,
    int errorRecords) {

  /** A snapshot of a job never throttled: one error record per attempt. */
  public JobSnapshot(JobId id, String type, String queue, int priority, JobStatus status,
      long readyAtMs, int attempts, Integer retryLimit, BackoffPolicy backoff,
      RetentionPolicy retention, long dequeuedAtMs, long failedAtMs, long completedAtMs,
      long purgeAtMs, byte[] payload, List<Binding> budgets, UniqueKey unique, BatchConfig batch) {
    this(id, type, queue, priority, status, readyAtMs, attempts, retryLimit, backoff, retention,
        dequeuedAtMs, failedAtMs, completedAtMs, purgeAtMs, payload, budgets, unique, batch,
        attempts);
  }

  /** A snapshot of a job that is neither unique nor batched. */
  public JobSnapshot(JobId id, String type, String queue, int priority, JobStatus status,
      long readyAtMs, int attempts, Integer retryLimit, BackoffPolicy backoff,
      RetentionPolicy retention, long dequeuedAtMs, long failedAtMs, long completedAtMs,
      long purgeAtMs, byte[] payload, List<Binding> budgets) {
    this(id, type, queue, priority, status, readyAtMs, attempts, retryLimit, backoff, retention,
        dequeuedAtMs, failedAtMs, completedAtMs, purgeAtMs, payload, budgets, null, null);
  }

  /** A snapshot of a job without budget bindings. */
  public JobSnapshot(JobId id, String type, String queue, int priority, JobStatus status,
      long readyAtMs, int attempts, Integer retryLimit, BackoffPolicy backoff,
      RetentionPolicy retention, long dequeuedAtMs, long failedAtMs, long completedAtMs,
      long purgeAtMs, byte[] payload) {
    this(id, type, queue, priority, status, readyAtMs, attempts, retryLimit, backoff, retention,
        dequeuedAtMs, failedAtMs, completedAtMs, purgeAtMs, payload, List.of());
  }

  public JobSnapshot withStatus(JobStatus newStatus) {
    return new JobSnapshot(
        id, type, queue, priority, newStatus, readyAtMs, attempts, retryLimit, backoff, retention,
        dequeuedAtMs, failedAtMs, completedAtMs, purgeAtMs, payload, budgets, unique, batch,
        errorRecords);
  }

  /**
   * The same record with the live status and dispatch time (for reads of stored records). A job
   * in flight shows no settled costs: those of its stored record are the previous attempt's.
   */
  public JobSnapshot live(JobStatus liveStatus, long liveDequeuedAtMs) {
    List<Binding> liveBudgets =
        liveStatus == JobStatus.IN_FLIGHT ? Job.unsettled(budgets) : budgets;
    return new JobSnapshot(
        id, type, queue, priority, liveStatus, readyAtMs, attempts, retryLimit, backoff,
        retention, liveDequeuedAtMs, failedAtMs, completedAtMs, purgeAtMs, payload, liveBudgets,
        unique, batch, errorRecords);
  }

  public JobSnapshot withNames(String newType, String newQueue) {
    return new JobSnapshot(
        id, newType, newQueue, priority, status, readyAtMs, attempts, retryLimit, backoff,
        retention, dequeuedAtMs, failedAtMs, completedAtMs, purgeAtMs, payload, budgets, unique,
        batch, errorRecords);
  }

  public JobSnapshot withPayload(byte[] newPayload) {
    return new JobSnapshot(
        id, type, queue, priority, status, readyAtMs, attempts, retryLimit, backoff, retention,
        dequeuedAtMs, failedAtMs, completedAtMs, purgeAtMs, newPayload, budgets, unique, batch,
        errorRecords);
  }
}

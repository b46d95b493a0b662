package io.sluice.engine.job;

/**
 * One recorded failure of a job. {@code sequence} is the record's position in the job's error
 * list (1 for the first), which addresses it in the store and in {@code GET /jobs/{id}/errors}.
 * {@code attempt} is the attempt that failed: the job's attempts right after that failure, or,
 * for a {@code throttled} report (X6), which does not count the attempt, the attempt in progress
 * (attempts + 1), since the job retries under the same number. Until a job is throttled its
 * sequence equals its attempt.
 */
public record ErrorRecord(
    int sequence, int attempt, String message, String errorType, String backtrace,
    long dequeuedAtMs, long failedAtMs, boolean throttled) {

  /** A failure counted as an attempt, of a job never throttled: its sequence is its attempt. */
  public ErrorRecord(int attempt, String message, String errorType, String backtrace,
      long dequeuedAtMs, long failedAtMs) {
    this(attempt, attempt, message, errorType, backtrace, dequeuedAtMs, failedAtMs, false);
  }
}

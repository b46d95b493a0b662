package io.sluice.engine.job;

/**
 * A worker's failure report. {@code retryAtMs} is null when absent; {@code jitterUniform} is the
 * backoff's random factor in [0, 1), chosen at the edge; {@code throttle} is null unless the
 * worker reports being throttled (X6).
 */
public record FailureReport(
    String message, String errorType, String backtrace, Long retryAtMs, boolean kill,
    double jitterUniform, Throttle throttle) {

  /** A failure that counts as an attempt (no throttle). */
  public FailureReport(String message, String errorType, String backtrace, Long retryAtMs,
      boolean kill, double jitterUniform) {
    this(message, errorType, backtrace, retryAtMs, kill, jitterUniform, null);
  }
}

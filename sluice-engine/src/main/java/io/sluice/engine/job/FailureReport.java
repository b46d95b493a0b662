package io.sluice.engine.job;

/**
 * A worker's failure report. {@code retryAtMs} is null when absent; {@code jitterUniform} is the
 * backoff's random factor in [0, 1), chosen at the edge.
 */
public record FailureReport(
    String message, String errorType, String backtrace, Long retryAtMs, boolean kill,
    double jitterUniform) {}

package io.sluice.engine.job;

/** One recorded failure of a job; {@code attempt} equals the job's attempts after that failure. */
public record ErrorRecord(
    int attempt, String message, String errorType, String backtrace, long dequeuedAtMs,
    long failedAtMs) {}

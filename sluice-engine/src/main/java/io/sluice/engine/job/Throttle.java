package io.sluice.engine.job;

/**
 * A worker's report that a downstream service told it to back off (X6): pause {@code budget} for
 * {@code retryAfterMs} and put the job back where it was, without counting the attempt.
 * {@code partition} is null unless the worker named one (X3).
 */
public record Throttle(String budget, String partition, long retryAfterMs) {}

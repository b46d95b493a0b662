package io.sluice.engine;

import io.sluice.engine.job.BackoffPolicy;

/**
 * Server-wide job defaults and limits.
 *
 * @param globalInFlightLimit most jobs in flight across all streams; 0 means unlimited
 * @param payloadCacheBytes payload bytes kept in memory for jobs not yet dispatched; beyond it
 *     payloads are read back from the store at dispatch
 * @param maxBudgets the most budgets the server holds (BUDGETS.md §8.8)
 */
public record EngineConfig(
    int defaultRetryLimit,
    BackoffPolicy defaultBackoff,
    long defaultCompletedRetentionMs,
    long defaultDeadRetentionMs,
    int globalInFlightLimit,
    long reaperIntervalMs,
    int schedulerBatchSize,
    long payloadCacheBytes,
    int maxBudgets) {
  public static final int DEFAULT_RETRY_LIMIT = 25;
  public static final long DEFAULT_DEAD_RETENTION_MS = 7L * 24 * 3600 * 1000;
  public static final int DEFAULT_GLOBAL_IN_FLIGHT_LIMIT = 1024;
  public static final long DEFAULT_REAPER_INTERVAL_MS = 30_000;
  public static final int DEFAULT_SCHEDULER_BATCH_SIZE = 200;
  public static final long DEFAULT_PAYLOAD_CACHE_BYTES = 64L << 20;
  public static final int DEFAULT_MAX_BUDGETS = 8192;

  /** A configuration with the default budget cap. */
  public EngineConfig(int defaultRetryLimit, BackoffPolicy defaultBackoff,
      long defaultCompletedRetentionMs, long defaultDeadRetentionMs, int globalInFlightLimit,
      long reaperIntervalMs, int schedulerBatchSize, long payloadCacheBytes) {
    this(defaultRetryLimit, defaultBackoff, defaultCompletedRetentionMs, defaultDeadRetentionMs,
        globalInFlightLimit, reaperIntervalMs, schedulerBatchSize, payloadCacheBytes,
        DEFAULT_MAX_BUDGETS);
  }

  public EngineConfig {
    if (defaultRetryLimit < 0) {
      throw new IllegalArgumentException("default retry limit must not be negative");
    }
    if (globalInFlightLimit < 0) {
      throw new IllegalArgumentException("global in-flight limit must not be negative");
    }
    if (reaperIntervalMs < 1) {
      throw new IllegalArgumentException("reaper interval must be at least 1 ms");
    }
    if (schedulerBatchSize < 1) {
      throw new IllegalArgumentException("scheduler batch size must be at least 1");
    }
    if (maxBudgets < 1) {
      throw new IllegalArgumentException("--max-budgets must be at least 1");
    }
  }

  public static EngineConfig defaults() {
    return new EngineConfig(
        DEFAULT_RETRY_LIMIT,
        BackoffPolicy.DEFAULT,
        0,
        DEFAULT_DEAD_RETENTION_MS,
        DEFAULT_GLOBAL_IN_FLIGHT_LIMIT,
        DEFAULT_REAPER_INTERVAL_MS,
        DEFAULT_SCHEDULER_BATCH_SIZE,
        DEFAULT_PAYLOAD_CACHE_BYTES);
  }

  public EngineConfig withGlobalInFlightLimit(int limit) {
    return new EngineConfig(
        defaultRetryLimit, defaultBackoff, defaultCompletedRetentionMs, defaultDeadRetentionMs,
        limit, reaperIntervalMs, schedulerBatchSize, payloadCacheBytes, maxBudgets);
  }

  public EngineConfig withMaxBudgets(int max) {
    return new EngineConfig(
        defaultRetryLimit, defaultBackoff, defaultCompletedRetentionMs, defaultDeadRetentionMs,
        globalInFlightLimit, reaperIntervalMs, schedulerBatchSize, payloadCacheBytes, max);
  }
}

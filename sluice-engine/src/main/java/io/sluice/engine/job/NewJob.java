package io.sluice.engine.job;

import io.sluice.engine.budget.BindingRequest;
import java.util.List;

/**
 * A validated enqueue request. {@code readyAtMs} is null for "now"; {@code retryLimit},
 * {@code backoff} and {@code retention} are null when the server defaults apply. {@code payload}
 * is the canonical JSON encoding of the payload.
 */
public record NewJob(
    JobId id,
    String type,
    String queue,
    int priority,
    Long readyAtMs,
    Integer retryLimit,
    BackoffPolicy backoff,
    RetentionPolicy retention,
    byte[] payload,
    List<BindingRequest> budgets,
    UniqueKey unique,
    BatchConfig batch) {
  public static final int DEFAULT_PRIORITY = 32768;

  /** A request that is neither unique nor batched. */
  public NewJob(JobId id, String type, String queue, int priority, Long readyAtMs,
      Integer retryLimit, BackoffPolicy backoff, RetentionPolicy retention, byte[] payload,
      List<BindingRequest> budgets) {
    this(id, type, queue, priority, readyAtMs, retryLimit, backoff, retention, payload, budgets,
        null, null);
  }

  /** A request without budget bindings. */
  public NewJob(JobId id, String type, String queue, int priority, Long readyAtMs,
      Integer retryLimit, BackoffPolicy backoff, RetentionPolicy retention, byte[] payload) {
    this(id, type, queue, priority, readyAtMs, retryLimit, backoff, retention, payload, List.of());
  }
}

package io.sluice.engine.job;

/**
 * A JSON merge patch of a job (API.md §8.16). For each field, {@code set*} says whether the patch
 * names it; a named field with a null value resets it. {@code queue} and {@code priority} are
 * null when absent (null values are refused before a patch is built).
 */
public record JobPatch(
    String queue,
    Integer priority,
    boolean setReadyAt, Long readyAtMs,
    boolean setRetryLimit, Integer retryLimit,
    boolean setBackoff, BackoffPolicy backoff,
    boolean setRetention, boolean clearRetention,
    boolean setCompletedMs, Long completedMs,
    boolean setDeadMs, Long deadMs) {

  /** The retention override after merging this patch into {@code current} (may be null). */
  public RetentionPolicy mergeRetention(RetentionPolicy current) {
    if (!setRetention) {
      return current;
    }
    if (clearRetention) {
      return null;
    }
    Long completed = current == null ? null : current.completedMs();
    Long dead = current == null ? null : current.deadMs();
    if (setCompletedMs) {
      completed = completedMs;
    }
    if (setDeadMs) {
      dead = deadMs;
    }
    RetentionPolicy merged = new RetentionPolicy(completed, dead);
    return merged.isEmpty() ? null : merged;
  }
}

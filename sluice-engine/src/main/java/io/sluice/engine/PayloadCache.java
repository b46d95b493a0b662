package io.sluice.engine;

import io.sluice.engine.job.Job;

/**
 * Which payloads stay in memory: a new job's payload while the cache has room (so a dispatch
 * soon after the enqueue reads no disk), and an open batch's whatever the cache holds. A job
 * without one in memory is read from the store by the transport.
 *
 * <p>Owned by the engine thread.
 */
final class PayloadCache {
  private final long capacityBytes;
  private long cachedBytes;

  PayloadCache(long capacityBytes) {
    this.capacityBytes = capacityBytes;
  }

  /** Keeps a new job's payload if it fits. */
  void offer(Job job, byte[] payload) {
    if (cachedBytes + payload.length <= capacityBytes) {
      job.payload(payload);
      cachedBytes += payload.length;
    }
  }

  /** Keeps the payload in memory whatever the cache holds: an open batch folds from it. */
  void pin(Job job, byte[] payload) {
    byte[] previous = job.payload();
    cachedBytes += payload.length - (previous == null ? 0 : previous.length);
    job.payload(payload);
  }

  /** Takes the job's payload out of memory, returning it (null when it was not cached). */
  byte[] take(Job job) {
    byte[] payload = job.payload();
    if (payload != null) {
      job.payload(null);
      cachedBytes -= payload.length;
    }
    return payload;
  }
}

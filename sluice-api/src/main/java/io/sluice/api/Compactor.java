package io.sluice.api;

import io.sluice.engine.store.StorageMaintenance;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs full compactions of the store, one at a time, each on a new {@code sluice-compact}
 * thread: never on an event loop or the engine thread, which go on serving meanwhile. Requests
 * made while one runs are coalesced into a single next run, which starts when the current one
 * ends, so that every caller waits for a compaction that began after it asked. Thread-safe.
 */
final class Compactor {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

  private final StorageMaintenance storage;
  private final long autoThreshold;
  /** The run in progress and the one queued behind it; null when none. Guarded by this. */
  private CompletableFuture<Void> running;
  private CompletableFuture<Void> queued;
  private String queuedReason;
  private boolean closed;

  Compactor(StorageMaintenance storage, long autoThreshold) {
    this.storage = storage;
    this.autoThreshold = autoThreshold;
  }

  /** Completes when a compaction that started after this call has finished. */
  synchronized CompletableFuture<Void> request(String reason) {
    if (closed) {
      return CompletableFuture.failedFuture(new IllegalStateException("the server is stopping"));
    }
    if (running == null) {
      running = new CompletableFuture<>();
      start(running, reason);
      return running;
    }
    if (queued == null) {
      queued = new CompletableFuture<>();
      queuedReason = reason;
    }
    return queued;
  }

  /** Starts a compaction in the background when a bulk change touched enough jobs. */
  void afterBulkChange(String change, long jobs) {
    if (autoThreshold > 0 && jobs >= autoThreshold) {
      request(change + " of " + jobs + " jobs");
    }
  }

  /** Drops the queued run; the running one is ended by closing the store. */
  synchronized void close() {
    closed = true;
    if (queued != null) {
      queued.completeExceptionally(new IllegalStateException("the server is stopping"));
      queued = null;
    }
  }

  private void start(CompletableFuture<Void> done, String reason) {
    Thread thread = new Thread(() -> run(done, reason), "sluice-compact");
    thread.setDaemon(true);
    thread.start();
  }

  private void run(CompletableFuture<Void> done, String reason) {
    long startedNanos = System.nanoTime();
    LOG.info("full compaction started ({})", reason);
    RuntimeException failure = null;
    try {
      storage.compact();
      LOG.info("full compaction finished in {} ms", elapsedMs(startedNanos));
    } catch (RuntimeException e) {
      failure = e;
      if (isClosed()) {
        LOG.info("full compaction stopped after {} ms: the server is stopping",
            elapsedMs(startedNanos));
      } else {
        LOG.warn("full compaction failed after {} ms: {}", elapsedMs(startedNanos), e.toString());
      }
    }
    // Before the callers hear of it, so that a request made on completion starts a new run.
    finished();
    if (failure == null) {
      done.complete(null);
    } else {
      done.completeExceptionally(failure);
    }
  }

  private synchronized boolean isClosed() {
    return closed;
  }

  private synchronized void finished() {
    running = queued;
    queued = null;
    if (running != null) {
      start(running, queuedReason);
    }
  }

  private static long elapsedMs(long startedNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
  }
}

package io.sluice.cli;

import io.sluice.engine.EngineObserver;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts the heap once a large backlog has been worked off, so that the next burst's jobs go
 * into memory the process already has rather than into pages it touches for the first time.
 *
 * <p>With the serial collector the old generation fills upward between full collections: every
 * burst's jobs are promoted above the dead jobs of the bursts before, so the process keeps
 * touching new pages until the generation is full. On the virtual machines Sluice is measured on,
 * a first touch cost 0.6 to 2.8 ms per MiB over one evening, up to a third of a warm bulk
 * enqueue's time; one full collection once the backlog is gone cost about 20 ms
 * (docs/decisions.md, "Compaction after a drained backlog").
 *
 * <p>{@link #published} runs on the engine thread after every turn and reads two counts there;
 * the collection itself runs on a thread of {@code background}, at most one at a time.
 */
final class DrainedBacklogCompactor implements EngineObserver {
  /** Jobs that must have been worked off since the peak before a compaction is worth its pause. */
  static final long BACKLOG_JOBS = 10_000;
  /** Growth of the old generation since the last compaction that makes one worth its pause. */
  static final long GROWTH_BYTES = 32L << 20;

  private static final Logger LOG = LoggerFactory.getLogger(DrainedBacklogCompactor.class);

  private final LongSupplier unfinishedJobs;
  private final LongSupplier activeJobs;
  private final OldGeneration oldGeneration;
  private final Executor background;
  private final AtomicBoolean compacting = new AtomicBoolean();
  private long peakUnfinished;
  private volatile long usedAfterCompaction;

  /**
   * {@code unfinishedJobs}: the engine's jobs not finished yet; {@code activeJobs}: those of them
   * ready (for a worker, a budget or their commit) or in flight. Both are read on the engine
   * thread.
   */
  DrainedBacklogCompactor(LongSupplier unfinishedJobs, LongSupplier activeJobs,
      OldGeneration oldGeneration, Executor background) {
    this.unfinishedJobs = unfinishedJobs;
    this.activeJobs = activeJobs;
    this.oldGeneration = oldGeneration;
    this.background = background;
    this.usedAfterCompaction = oldGeneration.usedBytes();
  }

  @Override
  public void published() {
    long unfinished = unfinishedJobs.getAsLong();
    if (unfinished >= peakUnfinished) {
      peakUnfinished = unfinished;
      return;
    }
    if (peakUnfinished - unfinished < BACKLOG_JOBS || activeJobs.getAsLong() > 0) {
      return;
    }
    long workedOff = peakUnfinished - unfinished;
    peakUnfinished = unfinished;
    if (unfinished > workedOff) {
      // The pause grows with the jobs still held: a million scheduled jobs would make it half a
      // second, for the sake of a burst a fraction of their size.
      return;
    }
    // Claimed first, so the growth is never weighed against the use a running compaction replaces.
    if (compacting.compareAndSet(false, true)) {
      if (oldGeneration.usedBytes() - usedAfterCompaction >= GROWTH_BYTES) {
        background.execute(() -> compact(workedOff));
      } else {
        compacting.set(false);
      }
    }
  }

  private void compact(long workedOff) {
    try {
      long before = oldGeneration.usedBytes();
      long startedNanos = System.nanoTime();
      oldGeneration.collectFully();
      long after = oldGeneration.usedBytes();
      usedAfterCompaction = after;
      LOG.debug("compacted the heap after {} jobs were worked off: old generation {} -> {} MiB in"
          + " {} ms", workedOff, before >> 20, after >> 20,
          (System.nanoTime() - startedNanos) / 1_000_000);
    } finally {
      compacting.set(false);
    }
  }

  /** Runs each compaction on a new daemon thread: there is one per worked-off backlog at most. */
  static Executor ownThreads() {
    return command -> {
      Thread thread = new Thread(command, "sluice-heap-compaction");
      thread.setDaemon(true);
      thread.start();
    };
  }
}

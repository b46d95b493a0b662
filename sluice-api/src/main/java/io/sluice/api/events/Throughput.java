package io.sluice.api.events;

import io.sluice.api.metrics.JobTotals;
import io.vertx.core.Vertx;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Jobs enqueued, completed and failed in each of the last {@value #KEPT_SECONDS} seconds, for the
 * dashboard's live chart (docs/events.md, {@code throughput}). Once a second it reads the
 * server's running totals and keeps the differences in a ring, so a client that connects sees the
 * last fifteen minutes at once. Sampled on an event loop, read by sessions on others.
 */
public final class Throughput {
  static final int KEPT_SECONDS = 900;
  static final long INTERVAL_MS = 1000;

  /** What happened in the second that ended at {@code atMs}. */
  record Sample(long atMs, long enqueued, long completed, long failed) {}

  private final Supplier<JobTotals> totals;
  private final IntSupplier workers;
  private final Sample[] ring = new Sample[KEPT_SECONDS];
  private int next;
  private int size;
  private JobTotals last;

  /** {@code workers} counts the open take streams. */
  public Throughput(Supplier<JobTotals> totals, IntSupplier workers) {
    this.totals = totals;
    this.workers = workers;
    this.last = totals.get();
  }

  /** Samples every second until Vert.x closes. */
  public void sampleEverySecond(Vertx vertx, InstantSource clock) {
    vertx.setPeriodic(INTERVAL_MS, id -> sample(clock.millis()));
  }

  synchronized void sample(long nowMs) {
    JobTotals now = totals.get();
    ring[next] = new Sample(nowMs, now.enqueued() - last.enqueued(),
        now.completed() - last.completed(), now.failed() - last.failed());
    next = (next + 1) % KEPT_SECONDS;
    size = Math.min(size + 1, KEPT_SECONDS);
    last = now;
  }

  /** The kept samples taken after {@code afterMs}, oldest first. */
  synchronized List<Sample> since(long afterMs) {
    List<Sample> newer = new ArrayList<>();
    for (int i = size; i > 0; i--) {
      Sample sample = ring[Math.floorMod(next - i, KEPT_SECONDS)];
      if (sample.atMs() > afterMs) {
        newer.add(sample);
      }
    }
    return newer;
  }

  int workers() {
    return workers.getAsInt();
  }
}

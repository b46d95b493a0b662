package io.sluice.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A Prometheus stand-in: a scrape every period on a thread of its own, until told to stop.
 * Bounded in count and time; a failed scrape ends the loop and is reported by {@link #finish}.
 */
final class ScrapeLoop {

  private final MetricsScraper scraper;
  private final long periodNanos;
  private final long maxNanos;
  private final List<MetricsScraper.Scrape> scrapes = new ArrayList<>();
  private final Thread thread;
  private volatile boolean stop;
  private volatile RuntimeException failure;

  ScrapeLoop(MetricsScraper scraper, long periodMillis, long maxSec) {
    this.scraper = scraper;
    this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
    this.maxNanos = TimeUnit.SECONDS.toNanos(maxSec);
    this.thread = new Thread(this::loop, "sluice-bench-scraper");
    this.thread.setDaemon(true);
  }

  /** Times {@code count} scrapes back to back, after {@code untimed} others, on this thread. */
  static List<MetricsScraper.Scrape> backToBack(MetricsScraper scraper, int untimed, int count) {
    for (int i = 0; i < untimed; i++) {
      scraper.scrape();
    }
    List<MetricsScraper.Scrape> timed = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      timed.add(scraper.scrape());
    }
    return timed;
  }

  /** Starts scraping at once, then once per period. */
  void start() {
    thread.start();
  }

  /**
   * Stops the loop and waits for the scrape in flight.
   * @throws BenchFailure if a scrape failed or the loop did not end in time
   */
  void finish(long timeoutMillis) {
    stop = true;
    LockSupport.unpark(thread);
    try {
      thread.join(timeoutMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchFailure("interrupted while waiting for the scraper");
    }
    if (thread.isAlive()) {
      throw new BenchFailure("scraper still busy " + timeoutMillis + " ms after being stopped");
    }
    if (failure != null) {
      throw failure;
    }
  }

  synchronized List<MetricsScraper.Scrape> scrapes() {
    return List.copyOf(scrapes);
  }

  private void loop() {
    long begin = System.nanoTime();
    long next = begin;
    try {
      while (!stop && System.nanoTime() - begin < maxNanos) {
        MetricsScraper.Scrape scrape = scraper.scrape();
        synchronized (this) {
          scrapes.add(scrape);
        }
        next += periodNanos;
        long wait;
        while (!stop && (wait = next - System.nanoTime()) > 0) {
          LockSupport.parkNanos(this, wait);
        }
      }
    } catch (RuntimeException e) {
      failure = e;
    }
  }
}

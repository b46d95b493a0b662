package io.sluice.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when a test moves it, to the millisecond.
 *
 * <p>Thread-safe, so an in-process server may read it while the test thread advances it. Time
 * never goes backwards.
 */
public final class ManualClock implements InstantSource {
  /** 2023-11-14T22:13:20Z: a round, recent instant, so ids and timestamps look realistic. */
  public static final long DEFAULT_START_MS = 1_700_000_000_000L;

  private final AtomicLong nowMs;

  public ManualClock() {
    this(DEFAULT_START_MS);
  }

  public ManualClock(long startMs) {
    this.nowMs = new AtomicLong(startMs);
  }

  @Override
  public long millis() {
    return nowMs.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(nowMs.get());
  }

  public void advance(Duration duration) {
    advanceMs(duration.toMillis());
  }

  public void advanceMs(long deltaMs) {
    if (deltaMs < 0) {
      throw new IllegalArgumentException("a manual clock never goes backwards: " + deltaMs);
    }
    nowMs.addAndGet(deltaMs);
  }

  @Override
  public String toString() {
    return "ManualClock[" + instant() + "]";
  }
}

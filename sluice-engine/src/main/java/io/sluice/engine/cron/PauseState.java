package io.sluice.engine.cron;

/**
 * The {@code paused} flag of a cron group or entry with its bookkeeping (API.md §9.5): a change
 * to paused stamps {@code paused_at}, a change to running stamps {@code resumed_at}, and setting
 * the value it already has stamps nothing. Owned by the engine thread.
 */
public final class PauseState {
  private boolean paused;
  /** {@link CronEntry#NONE} until first paused. */
  private long pausedAtMs;
  /** {@link CronEntry#NONE} until first resumed. */
  private long resumedAtMs;

  PauseState(boolean paused, long pausedAtMs, long resumedAtMs) {
    this.paused = paused;
    this.pausedAtMs = pausedAtMs;
    this.resumedAtMs = resumedAtMs;
  }

  /** The state of something created now: created paused counts as being paused now. */
  static PauseState created(boolean paused, long nowMs) {
    return new PauseState(paused, paused ? nowMs : CronEntry.NONE, CronEntry.NONE);
  }

  void set(boolean paused, long nowMs) {
    if (paused == this.paused) {
      return;
    }
    this.paused = paused;
    if (paused) {
      pausedAtMs = nowMs;
    } else {
      resumedAtMs = nowMs;
    }
  }

  public boolean paused() {
    return paused;
  }

  public long pausedAtMs() {
    return pausedAtMs;
  }

  public long resumedAtMs() {
    return resumedAtMs;
  }
}

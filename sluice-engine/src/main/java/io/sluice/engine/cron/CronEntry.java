package io.sluice.engine.cron;

import java.time.Instant;
import java.time.ZoneId;

/**
 * One named recurring template and its schedule (API.md §9.5). Owned by the engine thread.
 *
 * <p>{@code nextEnqueueAtMs} is the next occurrence in the entry's effective zone, which its
 * group decides, or {@link #NONE} when the expression never fires again. It only moves forward
 * from "now": to the first occurrence strictly after the time of a change or of a fire.
 */
public final class CronEntry {
  /** An unset time. */
  public static final long NONE = -1;

  private final String name;
  private CronExpression expression;
  /** The entry's own zone; null when it inherits its group's. */
  private ZoneId zone;
  private final PauseState pause;
  private long nextEnqueueAtMs;
  private long lastEnqueueAtMs;
  private JobTemplate template;

  CronEntry(String name, CronExpression expression, ZoneId zone, PauseState pause,
      long nextEnqueueAtMs, long lastEnqueueAtMs, JobTemplate template) {
    this.name = name;
    this.expression = expression;
    this.zone = zone;
    this.pause = pause;
    this.nextEnqueueAtMs = nextEnqueueAtMs;
    this.lastEnqueueAtMs = lastEnqueueAtMs;
    this.template = template;
  }

  /** A new entry, first due at the first occurrence strictly after now. */
  static CronEntry create(EntrySpec spec, JobTemplate template, ZoneId effectiveZone,
      long nowMs) {
    boolean paused = spec.paused() != null && spec.paused();
    return new CronEntry(spec.name(), spec.expression(), spec.zone(),
        PauseState.created(paused, nowMs), firstAfter(spec.expression(), effectiveZone, nowMs),
        NONE, template);
  }

  /**
   * Replaces the entry by a PUT: the schedule is kept when the expression and the effective zone
   * are both unchanged, else it restarts from now; {@code last_enqueue_at} is always kept.
   */
  void replace(EntrySpec spec, JobTemplate template, ZoneId oldZone, ZoneId newZone,
      long nowMs) {
    if (!spec.expression().equals(expression) || !newZone.equals(oldZone)) {
      nextEnqueueAtMs = firstAfter(spec.expression(), newZone, nowMs);
    }
    expression = spec.expression();
    zone = spec.zone();
    this.template = template;
    if (spec.paused() != null) {
      pause.set(spec.paused(), nowMs);
    }
  }

  /** The effective zone changed under the entry (its group's zone did): restart from now. */
  void rezone(ZoneId oldZone, ZoneId newZone, long nowMs) {
    if (!newZone.equals(oldZone)) {
      nextEnqueueAtMs = firstAfter(expression, newZone, nowMs);
    }
  }

  public void setPaused(boolean paused, long nowMs) {
    pause.set(paused, nowMs);
  }

  boolean dueAt(long nowMs) {
    return nextEnqueueAtMs != NONE && nextEnqueueAtMs <= nowMs;
  }

  /** Records a fire at {@code nowMs}. */
  void fired(long nowMs) {
    lastEnqueueAtMs = nowMs;
  }

  /**
   * Moves past every occurrence up to now, so occurrences missed while down or paused collapse
   * into the one fire (or none) just made.
   */
  void advance(ZoneId effectiveZone, long nowMs) {
    nextEnqueueAtMs = firstAfter(expression, effectiveZone, nowMs);
  }

  private static long firstAfter(CronExpression expression, ZoneId zone, long nowMs) {
    return expression.nextAfter(Instant.ofEpochMilli(nowMs), zone)
        .map(Instant::toEpochMilli)
        .orElse(NONE);
  }

  public String name() {
    return name;
  }

  public CronExpression expression() {
    return expression;
  }

  public ZoneId zone() {
    return zone;
  }

  public PauseState pause() {
    return pause;
  }

  public long nextEnqueueAtMs() {
    return nextEnqueueAtMs;
  }

  public long lastEnqueueAtMs() {
    return lastEnqueueAtMs;
  }

  public JobTemplate template() {
    return template;
  }

  public CronEntryView view() {
    return new CronEntryView(name, expression.toString(), zone, pause.paused(),
        pause.pausedAtMs(), pause.resumedAtMs(), nextEnqueueAtMs, lastEnqueueAtMs, template);
  }
}

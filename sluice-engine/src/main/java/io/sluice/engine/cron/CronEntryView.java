package io.sluice.engine.cron;

import java.time.ZoneId;

/**
 * An immutable copy of one entry, safe to hand to another thread. {@code zone} is the entry's own
 * zone (null when it inherits); times are {@link CronEntry#NONE} when unset.
 */
public record CronEntryView(
    String name,
    String expression,
    ZoneId zone,
    boolean paused,
    long pausedAtMs,
    long resumedAtMs,
    long nextEnqueueAtMs,
    long lastEnqueueAtMs,
    JobTemplate job) {}

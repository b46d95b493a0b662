package io.sluice.engine.cron;

import java.time.ZoneId;
import java.util.List;

/** An immutable copy of one group and its entries, safe to hand to another thread. */
public record CronGroupView(
    String name,
    boolean paused,
    long pausedAtMs,
    long resumedAtMs,
    ZoneId zone,
    List<CronEntryView> entries) {}

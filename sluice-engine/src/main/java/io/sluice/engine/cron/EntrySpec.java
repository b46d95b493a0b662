package io.sluice.engine.cron;

import io.sluice.engine.job.NewJob;
import java.time.ZoneId;

/**
 * A validated cron entry as a client sent it (API.md §9.1). {@code zone} null means "inherit";
 * {@code paused} null means "keep" (false for a new entry). {@code job} is the parsed template
 * request; its id and ready_at are unused, and its bindings are resolved on installation.
 */
public record EntrySpec(
    String name, CronExpression expression, ZoneId zone, Boolean paused, NewJob job) {}

package io.sluice.engine.cron;

import java.time.ZoneId;
import java.util.List;

/**
 * A validated {@code PUT /crons/{group}} body: the group whole. {@code zone} null clears the
 * group's zone; {@code paused} null keeps it (false for a new group). Entry names are distinct.
 */
public record GroupSpec(Boolean paused, ZoneId zone, List<EntrySpec> entries) {}

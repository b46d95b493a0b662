package io.sluice.engine.cron;

import java.time.ZoneId;

/**
 * A {@code PATCH /crons/{group}} merge patch: {@code paused} null leaves it; {@code setZone}
 * false leaves the zone, true sets it to {@code zone} (null clears it).
 */
public record GroupPatch(Boolean paused, boolean setZone, ZoneId zone) {}

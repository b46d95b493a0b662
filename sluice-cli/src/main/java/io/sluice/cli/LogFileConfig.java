package io.sluice.cli;

import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Objects;

/**
 * Where and how logs are written to disk (CLI.md §7): the active file is {@code
 * <dir>/sluice.log}; it is rotated at each {@code rotation} boundary and once it reaches {@code
 * maxBytes}, and at most {@code maxFiles} rotated files are kept beside it.
 */
record LogFileConfig(Path dir, Rotation rotation, long maxBytes, int maxFiles) {
  static final String FILE_NAME = "sluice.log";

  LogFileConfig {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(rotation, "rotation");
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be at least 1: " + maxBytes);
    }
    if (maxFiles < 1) {
      throw new IllegalArgumentException("maxFiles must be at least 1: " + maxFiles);
    }
  }

  Path file() {
    return dir.resolve(FILE_NAME);
  }

  /**
   * The time-based part of the rotation. Boundaries are in UTC, like the timestamps of the
   * compact and json formats, so a daily file holds one UTC day of lines.
   */
  enum Rotation {
    DAILY(ChronoUnit.DAYS),
    HOURLY(ChronoUnit.HOURS),
    NEVER(null);

    private final ChronoUnit period;

    Rotation(ChronoUnit period) {
      this.period = period;
    }

    /** The first boundary after {@code nowMs}; {@link Long#MAX_VALUE} for {@link #NEVER}. */
    long nextBoundaryMs(long nowMs) {
      if (period == null) {
        return Long.MAX_VALUE;
      }
      return Instant.ofEpochMilli(nowMs).truncatedTo(period).plus(1, period).toEpochMilli();
    }

    String flagValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}

package io.sluice.api;

import java.nio.file.Path;

/**
 * Where backups stage their checkpoints and when bulk changes ask for a compaction.
 *
 * @param scratchDir a directory on the store's file system (the root directory), so that a
 *     checkpoint hard-links the table files instead of copying them
 * @param autoCompactThreshold a bulk delete or patch touching at least this many jobs starts a
 *     full compaction in the background; 0 never does
 */
public record MaintenanceConfig(Path scratchDir, long autoCompactThreshold) {
  public MaintenanceConfig {
    if (scratchDir == null) {
      throw new IllegalArgumentException("scratch directory is required");
    }
    if (autoCompactThreshold < 0) {
      throw new IllegalArgumentException("auto-compaction threshold must not be negative");
    }
  }
}

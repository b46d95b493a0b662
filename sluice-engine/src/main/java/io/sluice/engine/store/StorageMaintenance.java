package io.sluice.engine.store;

import java.nio.file.Path;

/**
 * Operator work on the durable store that runs beside the engine, never on its thread: a
 * snapshot for backups and a full compaction. Both may take long and must not block commits;
 * both fail with a {@link StorageException} once the store is closing.
 */
public interface StorageMaintenance {
  /**
   * Writes a consistent point-in-time copy of the whole store into {@code dir}, which must not
   * exist yet; its parent must be on the store's file system (files are hard-linked).
   */
  void checkpoint(Path dir);

  /** Rewrites all stored data, dropping deleted records and their tombstones for good. */
  void compact();
}

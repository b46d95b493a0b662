package io.sluice.store.rocks;

import java.nio.file.Path;

/**
 * Where and how the RocksDB store runs. {@code cacheBytes} sizes the shared block cache.
 * {@code autoCompactThreshold} is the number of jobs a bulk delete or patch must touch to be
 * followed by a full compaction in the background (0: never); the API, which sees bulk changes,
 * acts on it.
 */
public record StoreConfig(Path dataDir, long cacheBytes, long autoCompactThreshold) {
  public static final long DEFAULT_CACHE_BYTES = 256_000_000L;
  public static final long DEFAULT_AUTO_COMPACT_THRESHOLD = 10_000;

  public StoreConfig {
    if (dataDir == null) {
      throw new IllegalArgumentException("data directory is required");
    }
    if (cacheBytes < 0) {
      throw new IllegalArgumentException("cache size must not be negative");
    }
    if (autoCompactThreshold < 0) {
      throw new IllegalArgumentException("auto-compaction threshold must not be negative");
    }
  }

  public StoreConfig(Path dataDir, long cacheBytes) {
    this(dataDir, cacheBytes, DEFAULT_AUTO_COMPACT_THRESHOLD);
  }
}

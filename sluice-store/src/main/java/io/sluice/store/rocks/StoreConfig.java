package io.sluice.store.rocks;

import java.nio.file.Path;

/** Where and how the RocksDB store runs. {@code cacheBytes} sizes the shared block cache. */
public record StoreConfig(Path dataDir, long cacheBytes) {
  public static final long DEFAULT_CACHE_BYTES = 256_000_000L;

  public StoreConfig {
    if (dataDir == null) {
      throw new IllegalArgumentException("data directory is required");
    }
    if (cacheBytes < 0) {
      throw new IllegalArgumentException("cache size must not be negative");
    }
  }
}

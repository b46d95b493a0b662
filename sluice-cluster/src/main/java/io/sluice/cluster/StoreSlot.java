package io.sluice.cluster;

import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;
import org.apache.ratis.util.FileUtils;

/**
 * This node's store, which a snapshot from the leader can replace while the node follows: the
 * store is closed, its directory refilled from the snapshot's checkpoint, and reopened.
 */
final class StoreSlot implements AutoCloseable {
  private final StoreConfig config;
  private volatile RocksJobStore store;

  StoreSlot(StoreConfig config) {
    this.config = config;
    this.store = new RocksJobStore(config);
  }

  RocksJobStore current() {
    return store;
  }

  /**
   * Replaces the store with a copy of {@code checkpoint} (a RocksDB checkpoint directory): table
   * files are hard-linked (they never change), the others copied, so the checkpoint stays
   * intact for the next follower that needs it.
   */
  synchronized void replaceWith(Path checkpoint) throws IOException {
    Path dataDir = config.dataDir();
    // Filled beside the store, then swapped in: a crash midway leaves the old store whole, or
    // no store (then the node restores it from the same snapshot when it starts).
    Path incoming = dataDir.resolveSibling(dataDir.getFileName() + ".incoming");
    FileUtils.deleteFully(incoming);
    Files.createDirectories(incoming);
    try (Stream<Path> files = Files.list(checkpoint)) {
      for (Path file : files.toList()) {
        String name = file.getFileName().toString();
        if (!Files.isRegularFile(file) || name.endsWith(".md5")) {
          continue;
        }
        Path target = incoming.resolve(name);
        if (name.endsWith(".sst")) {
          try {
            Files.createLink(target, file);
          } catch (IOException | UnsupportedOperationException e) {
            Files.copy(file, target);
          }
        } else {
          Files.copy(file, target);
        }
      }
    }
    store.close();
    FileUtils.deleteFully(dataDir);
    Files.move(incoming, dataDir, StandardCopyOption.ATOMIC_MOVE);
    store = new RocksJobStore(config);
  }

  @Override
  public synchronized void close() {
    store.close();
  }
}

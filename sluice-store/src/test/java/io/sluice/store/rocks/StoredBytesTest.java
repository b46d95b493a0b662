package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RocksJobStore#storedBytes}: what the data takes, in write buffers and table files. */
class StoredBytesTest {
  private static final int PAYLOAD_BYTES = 500;

  @TempDir Path dataDir;

  @Test
  void countsUnflushedWritesAndTableFilesAlike() {
    try (RocksJobStore store = new RocksJobStore(new StoreConfig(dataDir, 8L << 20))) {
      long empty = store.storedBytes();
      new StoredJobs(store).put(2_000, "q", PAYLOAD_BYTES);
      long buffered = store.storedBytes();
      assertThat(buffered - empty).as("write buffers holding ~1 MB of payloads")
          .isGreaterThan(2_000L * PAYLOAD_BYTES);

      store.compact(); // flushes the write buffers into table files
      assertThat(StoredJobs.tableBytes(dataDir)).isPositive();
      assertThat(store.storedBytes()).as("table files after the flush")
          .isGreaterThanOrEqualTo(StoredJobs.tableBytes(dataDir));
    }
  }

  @Test
  void aClosedStoreReportsNothingInsteadOfTouchingFreedMemory() {
    RocksJobStore store = new RocksJobStore(new StoreConfig(dataDir, 8L << 20));
    new StoredJobs(store).put(10, "q", PAYLOAD_BYTES);
    store.close();

    assertThat(store.storedBytes()).isZero();
  }
}

package io.sluice.store.rocks;

import io.sluice.engine.store.JobStore;
import io.sluice.engine.store.JobStoreContract;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The store contract on a real RocksDB database in a temporary directory; nothing is mocked. */
class RocksJobStoreContractTest extends JobStoreContract {
  @TempDir Path dataDir;

  private RocksJobStore current;

  @Override
  protected JobStore open() {
    current = new RocksJobStore(new StoreConfig(dataDir, 8L << 20));
    return current;
  }

  @Override
  protected JobStore reopen() {
    current.close();
    return open();
  }
}

package io.sluice.store.rocks;

import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.store.StorageException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * Builds the {@code index} column family from the job records when a data directory has none of
 * the current version. Version 1 also listed unfinished jobs, which version 2 keeps in memory
 * ({@link UnfinishedIndex}); stores written before the index existed have none. Afterwards every
 * commit keeps it exact, in the same atomic batch as the records.
 */
final class IndexBuilder {
  private static final byte[] VERSION_KEY = "index-version".getBytes(StandardCharsets.UTF_8);
  private static final byte[] VERSION = {2};
  private static final int BATCH_KEYS = 30_000;

  private final RocksDB db;
  private final ColumnFamilyHandle jobs;
  private final ColumnFamilyHandle index;
  private final ColumnFamilyHandle meta;

  IndexBuilder(RocksDB db, ColumnFamilyHandle jobs, ColumnFamilyHandle index,
      ColumnFamilyHandle meta) {
    this.db = db;
    this.jobs = jobs;
    this.index = index;
    this.meta = meta;
  }

  void buildIfMissing() {
    try {
      if (Arrays.equals(db.get(meta, VERSION_KEY), VERSION)) {
        return;
      }
      db.deleteRange(index, new byte[] {0}, new byte[] {(byte) 0xFF});
      try (WriteOptions synced = new WriteOptions().setSync(true);
          RocksIterator it = db.newIterator(jobs)) {
        int indexId = index.getID();
        BatchBuilder batch = new BatchBuilder();
        for (it.seekToFirst(); it.isValid(); it.next()) {
          byte[] key = it.key();
          IndexEntry entry = RecordCodec.decodeIndexEntry(it.value());
          IndexWrites.replace(batch, indexId, key, null, entry);
          if (batch.count() >= BATCH_KEYS) {
            write(synced, batch);
            batch = new BatchBuilder();
          }
        }
        it.status();
        batch.put(meta.getID(), VERSION_KEY, VERSION);
        write(synced, batch);
      }
    } catch (RocksDBException e) {
      throw new StorageException("build of the job index", e);
    }
  }

  private void write(WriteOptions options, BatchBuilder batch) throws RocksDBException {
    try (WriteBatch built = batch.build()) {
      db.write(options, built);
    }
  }
}

package io.sluice.store.rocks;

import java.util.Arrays;
import org.rocksdb.RocksIterator;

/** The job keys listed under one index prefix (one queue, type or state). */
final class PrefixCursor implements IdCursor {
  private static final byte[] LAST_JOB_KEY = lastJobKey();

  private final RocksIterator it;
  private final byte[] prefix;
  private final boolean descending;
  private byte[] current;

  PrefixCursor(RocksIterator it, byte[] prefix, boolean descending) {
    this.it = it;
    this.prefix = prefix;
    this.descending = descending;
    if (descending) {
      it.seekForPrev(IndexKeys.key(prefix, LAST_JOB_KEY));
    } else {
      it.seek(prefix);
    }
    read();
  }

  private static byte[] lastJobKey() {
    byte[] key = new byte[Keys.JOB_KEY_LENGTH];
    Arrays.fill(key, (byte) 0xFF);
    return key;
  }

  @Override
  public byte[] current() {
    return current;
  }

  @Override
  public void next() {
    if (current == null) {
      return;
    }
    if (descending) {
      it.prev();
    } else {
      it.next();
    }
    read();
  }

  @Override
  public void seek(byte[] target) {
    if (current == null || IdCursor.compare(current, target, descending) >= 0) {
      return;
    }
    if (descending) {
      it.seekForPrev(IndexKeys.key(prefix, target));
    } else {
      it.seek(IndexKeys.key(prefix, target));
    }
    read();
  }

  private void read() {
    current = it.isValid() ? IndexKeys.jobKeyUnder(prefix, it.key()) : null;
  }

  @Override
  public void close() {
    it.close();
  }
}

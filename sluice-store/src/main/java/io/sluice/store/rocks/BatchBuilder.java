package io.sluice.store.rocks;

import java.util.Arrays;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.WriteBatch;

/**
 * Builds a RocksDB write batch in its serialized form on the Java side and hands it over in one
 * call. Adding each record through {@link WriteBatch#put} crosses JNI once per key, and a job's
 * enqueue writes five keys (record, payload and three index keys) on the engine thread.
 *
 * <p>The layout is RocksDB's {@code WriteBatch} representation: a 12-byte header (sequence as a
 * little-endian fixed64, left 0 for the DB to assign; record count as a little-endian fixed32),
 * then per record a type byte, the column family id as a varint32 (column family variants only),
 * and the key and value each as a varint32 length followed by the bytes.
 */
final class BatchBuilder {
  private static final int HEADER = 12;
  private static final byte TYPE_DELETION = 0x0;
  private static final byte TYPE_VALUE = 0x1;
  private static final byte TYPE_CF_DELETION = 0x4;
  private static final byte TYPE_CF_VALUE = 0x5;

  private byte[] bytes = new byte[4096];
  private int length = HEADER;
  private int count;

  /** {@code family} is a column family id ({@link ColumnFamilyHandle#getID}, 0 for default). */
  void put(int family, byte[] key, byte[] value) {
    int id = family;
    ensure(1 + 5 + 5 + key.length + 5 + value.length);
    if (id == 0) {
      bytes[length++] = TYPE_VALUE;
    } else {
      bytes[length++] = TYPE_CF_VALUE;
      varint(id);
    }
    slice(key);
    slice(value);
    count++;
  }

  void delete(int family, byte[] key) {
    int id = family;
    ensure(1 + 5 + 5 + key.length);
    if (id == 0) {
      bytes[length++] = TYPE_DELETION;
    } else {
      bytes[length++] = TYPE_CF_DELETION;
      varint(id);
    }
    slice(key);
    count++;
  }

  int count() {
    return count;
  }

  /** The batch as RocksDB's own object; the caller closes it. */
  WriteBatch build() {
    bytes[8] = (byte) count;
    bytes[9] = (byte) (count >>> 8);
    bytes[10] = (byte) (count >>> 16);
    bytes[11] = (byte) (count >>> 24);
    return new WriteBatch(Arrays.copyOf(bytes, length));
  }

  private void slice(byte[] data) {
    varint(data.length);
    System.arraycopy(data, 0, bytes, length, data.length);
    length += data.length;
  }

  private void varint(int value) {
    while ((value & ~0x7F) != 0) {
      bytes[length++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    bytes[length++] = (byte) value;
  }

  private void ensure(int extra) {
    if (length + extra > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + extra));
    }
  }
}

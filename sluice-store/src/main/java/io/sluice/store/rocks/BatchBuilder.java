package io.sluice.store.rocks;

import java.util.Arrays;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.WriteBatch;

/**
 * Builds a RocksDB write batch in its serialized form on the Java side and hands it over in one
 * call. Adding each record through {@link WriteBatch#put} crosses JNI once per key, and a job's
 * enqueue writes five keys (record, payload and three index keys) on the engine thread.
 *
 * <p>Records are grouped into lanes, one per column family and key group (an index prefix), and
 * the lanes follow each other in the batch. A memtable inserts a key cheaply next to the key it
 * inserted last; a batch of jobs in id order that alternated between the queue, type and status
 * parts of the index made every index insert search its skip list from the top. The records of
 * one lane keep their order, and a key always falls in the same lane, so the batch means what
 * the order of the calls meant.
 *
 * <p>The layout is RocksDB's {@code WriteBatch} representation: a 12-byte header (sequence as a
 * little-endian fixed64, left 0 for the DB to assign; record count as a little-endian fixed32),
 * then per record a type byte, the column family id as a varint32 (column family variants only),
 * and the key and value each as a varint32 length followed by the bytes.
 *
 * <p>A builder can be {@link #reset} and used for the next batch: its lanes keep their arrays,
 * so a steady stream of commits stops allocating and regrowing them (a thousand-job commit
 * grew each lane from 1 KiB by doubling, every time).
 */
final class BatchBuilder {
  /** The layout's constants, shared with {@link BatchRecords}, which reads it back. */
  static final int HEADER = 12;
  static final byte TYPE_DELETION = 0x0;
  static final byte TYPE_VALUE = 0x1;
  static final byte TYPE_CF_DELETION = 0x4;
  static final byte TYPE_CF_VALUE = 0x5;
  /** Lanes of their own: past {@code MAX_LANES - 1} groups, new ones share one lane. */
  private static final int MAX_LANES = 16;
  /**
   * A lane's array (and the value writer's) kept across a reset at most this large: one huge
   * batch is not held on to. A thousand-job commit's lanes stay below it.
   */
  static final int MAX_KEPT_LANE_BYTES = 256 << 10;

  /** The lanes in use, then (past {@code laneCount}) lanes kept from earlier batches. */
  private final Lane[] lanes = new Lane[MAX_LANES];
  private int laneCount;
  /** The groups met once every lane was taken, in call order; written last. */
  private Lane overflow;
  private int count;
  private RecordWriter values = new RecordWriter();

  /** Empties the builder for the next batch, keeping its lanes' arrays. */
  BatchBuilder reset() {
    for (int i = 0; i < laneCount; i++) {
      lanes[i].clear();
    }
    laneCount = 0;
    if (overflow != null) {
      overflow.clear();
    }
    count = 0;
    if (values.array().length > MAX_KEPT_LANE_BYTES) {
      values = new RecordWriter();
    }
    return this;
  }

  /** A writer for one value at a time, reused: pass it to {@link #put} before the next use. */
  RecordWriter valueWriter() {
    return values.reset();
  }

  /** {@code family} is a column family id ({@link ColumnFamilyHandle#getID}, 0 for default). */
  void put(int family, byte[] key, byte[] value) {
    put(family, null, key, value);
  }

  /** A record of a key group: {@code group} is the key's prefix shared by the group. */
  void put(int family, byte[] group, byte[] key, byte[] value) {
    lane(family, group).record(family, TYPE_VALUE, TYPE_CF_VALUE, key, value, value.length);
    count++;
  }

  /** A record whose value is what {@code value} holds. */
  void put(int family, byte[] key, RecordWriter value) {
    lane(family, null).record(family, TYPE_VALUE, TYPE_CF_VALUE, key, value.array(),
        value.length());
    count++;
  }

  void delete(int family, byte[] key) {
    delete(family, null, key);
  }

  void delete(int family, byte[] group, byte[] key) {
    lane(family, group).record(family, TYPE_DELETION, TYPE_CF_DELETION, key, null, 0);
    count++;
  }

  int count() {
    return count;
  }

  /** The batch as RocksDB's own object; the caller closes it. */
  WriteBatch build() {
    return new WriteBatch(serialized());
  }

  /** The batch in RocksDB's serialized form, as {@link WriteBatch#data} would give it. */
  byte[] serialized() {
    int length = HEADER + (overflow == null ? 0 : overflow.length);
    for (int i = 0; i < laneCount; i++) {
      length += lanes[i].length;
    }
    byte[] bytes = new byte[length];
    bytes[8] = (byte) count;
    bytes[9] = (byte) (count >>> 8);
    bytes[10] = (byte) (count >>> 16);
    bytes[11] = (byte) (count >>> 24);
    int at = HEADER;
    for (int i = 0; i < laneCount; i++) {
      System.arraycopy(lanes[i].bytes, 0, bytes, at, lanes[i].length);
      at += lanes[i].length;
    }
    if (overflow != null) {
      System.arraycopy(overflow.bytes, 0, bytes, at, overflow.length);
    }
    return bytes;
  }

  private Lane lane(int family, byte[] group) {
    for (int i = 0; i < laneCount; i++) {
      if (lanes[i].holds(family, group)) {
        return lanes[i];
      }
    }
    if (laneCount < MAX_LANES - 1) {
      Lane kept = lanes[laneCount];
      if (kept == null) {
        kept = new Lane();
        lanes[laneCount] = kept;
      }
      laneCount++;
      return kept.holding(family, group);
    }
    if (overflow == null) {
      overflow = new Lane().holding(-1, null);
    }
    return overflow;
  }

  /** The records of one column family and key group, in call order. */
  private static final class Lane {
    private static final int FIRST_BYTES = 1024;
    int family;
    byte[] group;
    byte[] bytes = new byte[FIRST_BYTES];
    int length;

    Lane holding(int family, byte[] group) {
      this.family = family;
      this.group = group;
      return this;
    }

    void clear() {
      length = 0;
      group = null;
      if (bytes.length > MAX_KEPT_LANE_BYTES) {
        bytes = new byte[FIRST_BYTES];
      }
    }

    boolean holds(int family, byte[] group) {
      return this.family == family
          && (this.group == group || (this.group != null && Arrays.equals(this.group, group)));
    }

    void record(int family, byte plainType, byte familyType, byte[] key, byte[] value,
        int valueLength) {
      ensure(1 + 5 + 5 + key.length + 5 + valueLength);
      if (family == 0) {
        bytes[length++] = plainType;
      } else {
        bytes[length++] = familyType;
        varint(family);
      }
      slice(key, key.length);
      if (value != null) {
        slice(value, valueLength);
      }
    }

    private void slice(byte[] data, int dataLength) {
      varint(dataLength);
      System.arraycopy(data, 0, bytes, length, dataLength);
      length += dataLength;
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
}

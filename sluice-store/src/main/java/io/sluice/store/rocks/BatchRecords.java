package io.sluice.store.rocks;

import java.util.Arrays;

/**
 * Reads the records of a write batch in RocksDB's serialized form, as {@link BatchBuilder} makes
 * it: the 12-byte header, then per record a type byte, the column family id as a varint32 (column
 * family variants only), and the key and value each as a varint32 length and the bytes.
 */
final class BatchRecords {

  /** One record: {@code value} is null for a deletion. */
  interface Visitor {
    void record(int family, byte[] key, byte[] value);
  }

  private final byte[] bytes;
  private int at;

  private BatchRecords(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * Calls {@code visitor} for every record, in order.
   *
   * @throws IllegalArgumentException if the batch is malformed or holds another kind of record
   */
  static void forEach(byte[] batch, Visitor visitor) {
    if (batch.length < BatchBuilder.HEADER) {
      throw new IllegalArgumentException("a write batch of " + batch.length + " bytes");
    }
    new BatchRecords(batch).walk(visitor);
  }

  private void walk(Visitor visitor) {
    at = BatchBuilder.HEADER;
    while (at < bytes.length) {
      byte type = bytes[at++];
      int family = switch (type) {
        case BatchBuilder.TYPE_DELETION, BatchBuilder.TYPE_VALUE -> 0;
        case BatchBuilder.TYPE_CF_DELETION, BatchBuilder.TYPE_CF_VALUE -> varint();
        default -> throw new IllegalArgumentException(
            "a write batch record of type " + type + " at byte " + (at - 1));
      };
      byte[] key = slice();
      boolean put = type == BatchBuilder.TYPE_VALUE || type == BatchBuilder.TYPE_CF_VALUE;
      byte[] value = put ? slice() : null;
      visitor.record(family, key, value);
    }
  }

  private byte[] slice() {
    int length = varint();
    if (length < 0 || length > bytes.length - at) {
      throw new IllegalArgumentException("a write batch slice past its end at byte " + at);
    }
    byte[] slice = Arrays.copyOfRange(bytes, at, at + length);
    at += length;
    return slice;
  }

  private int varint() {
    int value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      if (at >= bytes.length) {
        break;
      }
      byte b = bytes[at++];
      value |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new IllegalArgumentException("a malformed varint in a write batch at byte " + at);
  }
}

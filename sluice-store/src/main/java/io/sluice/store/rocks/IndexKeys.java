package io.sluice.store.rocks;

import io.sluice.engine.store.IndexEntry;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Key layout of the {@code index} column family: a one-byte term tag ({@code q} queue, {@code t}
 * type, {@code s} state), the term's value as UTF-8, a zero byte, then the 16-byte job key. Names
 * may not contain a zero byte (API.md §3.7), so one value's keys are contiguous and sorted by job
 * id, and no value's range overlaps another's.
 */
final class IndexKeys {
  static final byte QUEUE = 'q';
  static final byte TYPE = 't';
  static final byte STATE = 's';

  private IndexKeys() {}

  /** The prefix shared by every key of one term value. */
  static byte[] prefix(byte tag, String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    byte[] prefix = new byte[utf8.length + 2];
    prefix[0] = tag;
    System.arraycopy(utf8, 0, prefix, 1, utf8.length);
    return prefix; // the last byte stays zero
  }

  static byte[] prefix(IndexEntry.State state) {
    return prefix(STATE, state.name().toLowerCase(java.util.Locale.ROOT));
  }

  static byte[] key(byte[] prefix, byte[] jobKey) {
    byte[] key = Arrays.copyOf(prefix, prefix.length + Keys.JOB_KEY_LENGTH);
    System.arraycopy(jobKey, 0, key, prefix.length, Keys.JOB_KEY_LENGTH);
    return key;
  }

  /** The job key at the end of an index key, if the index key lies under {@code prefix}. */
  static byte[] jobKeyUnder(byte[] prefix, byte[] key) {
    if (key.length != prefix.length + Keys.JOB_KEY_LENGTH
        || !Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length)) {
      return null;
    }
    return Arrays.copyOfRange(key, prefix.length, key.length);
  }
}

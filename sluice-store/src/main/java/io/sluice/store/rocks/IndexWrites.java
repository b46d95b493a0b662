package io.sluice.store.rocks;

import io.sluice.engine.store.IndexEntry;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** Moves one job's keys in the {@code index} column family from one entry to another. */
final class IndexWrites {
  private static final byte[] NO_VALUE = new byte[0];
  private static final Map<IndexEntry.State, byte[]> STATE_PREFIXES = statePrefixes();
  /**
   * Encoded prefixes of recent queue and type names: every enqueue writes two, and encoding them
   * afresh each time was a fifth of the engine thread's work under bulk enqueue. Prefixes are
   * never modified, so sharing them is safe.
   */
  private static final int MAX_CACHED_PREFIXES = 4096;
  private static final Map<String, byte[]> QUEUE_PREFIXES = new ConcurrentHashMap<>();
  private static final Map<String, byte[]> TYPE_PREFIXES = new ConcurrentHashMap<>();

  private IndexWrites() {}

  /**
   * {@code from} null: the job was not indexed yet; {@code to} null: it is being deleted.
   * {@code index} is the id of the index column family. Only finished jobs have stored keys
   * ({@link UnfinishedIndex} holds the others), so an unfinished entry counts as none.
   */
  static void replace(BatchBuilder writes, int index, byte[] jobKey,
      IndexEntry from, IndexEntry to) {
    from = stored(from);
    to = stored(to);
    if (from == to) {
      return; // the common rewrite of a job whose queue, type and status class stay put
    }
    String oldQueue = from == null ? null : from.queue();
    String newQueue = to == null ? null : to.queue();
    if (!Objects.equals(oldQueue, newQueue)) {
      move(writes, index, jobKey, prefix(IndexKeys.QUEUE, oldQueue),
          prefix(IndexKeys.QUEUE, newQueue));
    }
    String oldType = from == null ? null : from.type();
    String newType = to == null ? null : to.type();
    if (!Objects.equals(oldType, newType)) {
      move(writes, index, jobKey, prefix(IndexKeys.TYPE, oldType), prefix(IndexKeys.TYPE, newType));
    }
    IndexEntry.State oldState = from == null ? null : from.state();
    IndexEntry.State newState = to == null ? null : to.state();
    if (oldState != newState) {
      move(writes, index, jobKey, oldState == null ? null : STATE_PREFIXES.get(oldState),
          newState == null ? null : STATE_PREFIXES.get(newState));
    }
  }

  private static IndexEntry stored(IndexEntry entry) {
    return entry == null || entry.state() == IndexEntry.State.UNFINISHED ? null : entry;
  }

  static byte[] statePrefix(IndexEntry.State state) {
    return STATE_PREFIXES.get(state);
  }

  private static void move(BatchBuilder writes, int index, byte[] jobKey,
      byte[] fromPrefix, byte[] toPrefix) {
    if (fromPrefix != null) {
      writes.delete(index, fromPrefix, IndexKeys.key(fromPrefix, jobKey));
    }
    if (toPrefix != null) {
      writes.put(index, toPrefix, IndexKeys.key(toPrefix, jobKey), NO_VALUE);
    }
  }

  private static byte[] prefix(byte tag, String value) {
    if (value == null) {
      return null;
    }
    Map<String, byte[]> cache = tag == IndexKeys.QUEUE ? QUEUE_PREFIXES : TYPE_PREFIXES;
    byte[] prefix = cache.get(value);
    if (prefix == null) {
      if (cache.size() >= MAX_CACHED_PREFIXES) {
        cache.clear();
      }
      prefix = IndexKeys.prefix(tag, value);
      cache.put(value, prefix);
    }
    return prefix;
  }

  private static Map<IndexEntry.State, byte[]> statePrefixes() {
    Map<IndexEntry.State, byte[]> prefixes = new EnumMap<>(IndexEntry.State.class);
    for (IndexEntry.State state : IndexEntry.State.values()) {
      prefixes.put(state, IndexKeys.prefix(state));
    }
    return prefixes;
  }
}

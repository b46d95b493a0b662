package io.sluice.store.rocks;

import io.sluice.engine.job.JobId;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A sorted set of job ids with one writer and any number of readers, cheap for what the index
 * of unfinished jobs does most: ids arrive in creation order (they are time-ordered) and leave
 * in roughly the same order. Ids are appended to chunks and marked gone on removal; a chunk
 * with none left is dropped, and one with few left is copied into a smaller one. An id older
 * than the newest one held (a job moved between queues, or retried after it finished) goes to
 * a small skip list instead.
 *
 * <p>Readers see every id present throughout their walk; one added or removed meanwhile may or
 * may not be seen.
 */
final class IdSet {
  /** Chunks start small, for the many sets of a few ids, and double up to this. */
  static final int MAX_CHUNK_IDS = 1024;
  private static final int FIRST_CHUNK_IDS = 8;
  /** How many positions after the last removal a removal looks at before searching. */
  private static final int NEAR_REMOVALS = 8;

  /** In id order, each chunk's ids after the previous chunk's; replaced whole when it changes. */
  private volatile Chunk[] chunks = new Chunk[0];
  private final ConcurrentSkipListSet<JobId> stragglers = new ConcurrentSkipListSet<>();
  private int size; // the writer's count
  /** The writer's: listed by {@link UnfinishedIndex} as left empty, not yet looked at again. */
  boolean listedEmpty;
  /**
   * The writer's: a job joined the set since it was listed as empty or since {@link
   * UnfinishedIndex} last looked at it; such a set is not dropped at the next look.
   */
  boolean keepAtNextLook;
  /**
   * The position of the chunk the last removal was in, maybe stale: ids mostly leave in the
   * order they came, so the next one is most often in the same chunk, found without a search.
   */
  private int lastRemovedChunk;

  void add(JobId id) {
    Chunk[] current = chunks;
    Chunk tail = current.length == 0 ? null : current[current.length - 1];
    if (tail == null || tail.endsBefore(id.hi(), id.lo())) {
      if (tail == null || tail.isFull()) {
        Chunk next = new Chunk(tail == null ? FIRST_CHUNK_IDS
            : Math.min(MAX_CHUNK_IDS, tail.capacity() * 2));
        next.append(id.hi(), id.lo());
        // A full tail whose ids are all gone is dropped as the next one starts.
        int kept = tail != null && tail.isEmpty() ? current.length - 1 : current.length;
        Chunk[] grown = Arrays.copyOf(current, kept + 1);
        grown[kept] = next;
        chunks = grown;
      } else {
        tail.append(id.hi(), id.lo());
      }
    } else {
      stragglers.add(id);
    }
    size++;
  }

  /** Removes {@code id}; false if it was not held. */
  boolean remove(JobId id) {
    Chunk[] current = chunks;
    int at = lastRemovedChunk < current.length && current[lastRemovedChunk].spans(id.hi(), id.lo())
        ? lastRemovedChunk : chunkOf(current, id.hi(), id.lo());
    if (at >= 0 && current[at].remove(id.hi(), id.lo())) {
      lastRemovedChunk = at;
      Chunk chunk = current[at];
      boolean tail = at == current.length - 1; // it still takes appends: kept as it is
      if (!tail && chunk.isEmpty()) {
        Chunk[] shrunk = new Chunk[current.length - 1];
        System.arraycopy(current, 0, shrunk, 0, at);
        System.arraycopy(current, at + 1, shrunk, at, current.length - at - 1);
        chunks = shrunk;
      } else if (!tail && chunk.isSparse()) {
        Chunk[] replaced = current.clone();
        replaced[at] = chunk.compacted();
        chunks = replaced;
      }
      size--;
      return true;
    }
    if (stragglers.remove(id)) {
      size--;
      return true;
    }
    return false;
  }

  int chunkCount() {
    return chunks.length;
  }

  /** Id slots the chunks take, held or gone. */
  long slots() {
    long slots = 0;
    for (Chunk chunk : chunks) {
      slots += chunk.capacity();
    }
    return slots;
  }

  /** The writer's view. */
  boolean isEmpty() {
    return size == 0;
  }

  /** A cursor over the ids as they are while it walks; backwards when {@code descending}. */
  IdCursor cursor(boolean descending) {
    IdCursor appended = new ChunkCursor(chunks, descending);
    if (stragglers.isEmpty()) {
      return appended;
    }
    return new UnionCursor(List.of(appended, new StragglerCursor(stragglers, descending)),
        descending);
  }

  /** The last chunk whose first id is at or before (hi, lo), or -1. */
  static int chunkOf(Chunk[] chunks, long hi, long lo) {
    int low = 0;
    int high = chunks.length - 1;
    int found = -1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      if (compare(chunks[mid].hi(0), chunks[mid].lo(0), hi, lo) <= 0) {
        found = mid;
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    return found;
  }

  static int compare(long hi1, long lo1, long hi2, long lo2) {
    int byHi = Long.compareUnsigned(hi1, hi2);
    return byHi != 0 ? byHi : Long.compareUnsigned(lo1, lo2);
  }

  /** Ids in ascending order, each appended once and marked gone at most once. */
  static final class Chunk {
    private final long[] ids;
    /** Appended ids: readers look at the first {@code size} only. */
    private volatile int size;
    private final AtomicLongArray gone;
    private int live; // the writer's count
    /** Where the writer last removed an id, or -1. */
    private int lastRemoved = -1;

    Chunk(int capacity) {
      ids = new long[2 * capacity];
      gone = new AtomicLongArray((capacity + 63) / 64);
    }

    int capacity() {
      return ids.length / 2;
    }

    long hi(int i) {
      return ids[2 * i];
    }

    long lo(int i) {
      return ids[2 * i + 1];
    }

    int size() {
      return size;
    }

    boolean isGone(int i) {
      return (gone.get(i >>> 6) & (1L << (i & 63))) != 0;
    }

    boolean isFull() {
      return size == capacity();
    }

    boolean isEmpty() {
      return live == 0;
    }

    /**
     * Holding an eighth of its slots or fewer: a few long-lived ids among many finished ones
     * would otherwise keep whole chunks.
     */
    boolean isSparse() {
      return capacity() > FIRST_CHUNK_IDS && live * 8 <= capacity();
    }

    /** A smaller chunk of the ids still held, in order. */
    Chunk compacted() {
      Chunk smaller = new Chunk(Math.max(FIRST_CHUNK_IDS, Integer.highestOneBit(live) * 2));
      for (int i = 0; i < size; i++) {
        if (!isGone(i)) {
          smaller.append(hi(i), lo(i));
        }
      }
      return smaller;
    }

    /**
     * Whether (hi, lo) lies between the first and the last id appended here: then no other chunk
     * can hold it, their ids being all before or all after these.
     */
    boolean spans(long hi, long lo) {
      int last = size - 1;
      return last >= 0 && compare(hi(0), lo(0), hi, lo) <= 0
          && compare(hi, lo, hi(last), lo(last)) <= 0;
    }

    /** Whether (hi, lo) comes after every id ever appended here. */
    boolean endsBefore(long hi, long lo) {
      int last = size - 1;
      return compare(hi(last), lo(last), hi, lo) < 0;
    }

    void append(long hi, long lo) {
      int at = size;
      ids[2 * at] = hi;
      ids[2 * at + 1] = lo;
      live++;
      size = at + 1; // publishes the id
    }

    /** The position of (hi, lo), or where it would go as {@code -(insertion point) - 1}. */
    int indexOf(long hi, long lo) {
      int low = 0;
      int high = size - 1;
      while (low <= high) {
        int mid = (low + high) >>> 1;
        int c = compare(hi(mid), lo(mid), hi, lo);
        if (c < 0) {
          low = mid + 1;
        } else if (c > 0) {
          high = mid - 1;
        } else {
          return mid;
        }
      }
      return -(low + 1);
    }

    boolean remove(long hi, long lo) {
      int at = nextAfterLastRemoved(hi, lo);
      if (at < 0) {
        at = indexOf(hi, lo);
      }
      if (at < 0 || isGone(at)) {
        return false;
      }
      gone.set(at >>> 6, gone.get(at >>> 6) | (1L << (at & 63)));
      live--;
      lastRemoved = at;
      return true;
    }

    /**
     * The position of (hi, lo) among the few after the last removal, or -1: a stream's jobs
     * leave in the order they were handed out, a few apart when several streams share a queue.
     */
    private int nextAfterLastRemoved(long hi, long lo) {
      if (lastRemoved < 0) {
        return -1;
      }
      int end = Math.min(size, lastRemoved + 1 + NEAR_REMOVALS);
      for (int i = lastRemoved + 1; i < end; i++) {
        if (hi(i) == hi && lo(i) == lo) {
          return i;
        }
      }
      return -1;
    }
  }
}

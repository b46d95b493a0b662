package io.sluice.store.rocks;

import io.sluice.engine.job.JobId;
import io.sluice.engine.store.IndexEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The index terms of every unfinished job, held in memory: the stored index lists finished jobs
 * only. An unfinished job's terms were written at enqueue and deleted at completion, six of the
 * ten memtable writes of a job's life, and are rebuilt from the records whenever the store opens.
 *
 * <p>One thread writes (the one committing); readers on any thread walk the sets while they
 * change (see {@link IdSet}).
 */
final class UnfinishedIndex {
  /** Shared: a cursor over nothing never moves, so it holds no state to share. */
  private static final IdCursor NONE = new ChunkCursor(new IdSet.Chunk[0], false);

  private final IdSet all = new IdSet();
  private final Map<String, IdSet> byQueue = new ConcurrentHashMap<>();
  private final Map<String, IdSet> byType = new ConcurrentHashMap<>();
  /**
   * Sets left empty, each listed once. They are looked at together once {@link #pruneAt} are
   * listed, so that names that come and go do not pile up: a set is dropped when a look finds
   * it empty and no job joined it since it was listed or since the look before. A quiet queue's
   * set, which empties with each job, thus stays as long as a job comes between two looks, which
   * are at least {@link #PRUNE_AT} emptyings apart. The sets held empty are those in use plus
   * at most twice as many listed; a look costs the list's length, once per as many emptyings.
   */
  private final List<Emptied> emptied = new ArrayList<>();

  /**
   * Empty sets listed at least before a look. An empty set is a few hundred bytes, or up to
   * 16 KiB while it keeps a large last chunk.
   */
  static final int PRUNE_AT = 1024;
  /**
   * Twice the sets kept listed by the last look (those in use), at least {@link #PRUNE_AT}: each
   * look pays for itself, and the sets held empty stay about as many as those in use.
   */
  private int pruneAt = PRUNE_AT;
  private long setsMade;

  private record Emptied(Map<String, IdSet> sets, String name, IdSet set) {}

  /**
   * Moves {@code id} from what it was indexed under to what it is now (null: nothing, the job
   * is new or deleted). Finished entries are not held here, so they count as nothing.
   */
  void move(JobId id, IndexEntry from, IndexEntry to) {
    from = held(from);
    to = held(to);
    if (Objects.equals(from, to)) {
      return;
    }
    if (from == null) {
      all.add(id);
    } else if (to == null) {
      all.remove(id);
    }
    String fromQueue = from == null ? null : from.queue();
    String toQueue = to == null ? null : to.queue();
    if (!Objects.equals(fromQueue, toQueue)) {
      leave(byQueue, fromQueue, id);
      join(byQueue, toQueue, id);
    }
    String fromType = from == null ? null : from.type();
    String toType = to == null ? null : to.type();
    if (!Objects.equals(fromType, toType)) {
      leave(byType, fromType, id);
      join(byType, toType, id);
    }
  }

  private static IndexEntry held(IndexEntry entry) {
    return entry == null || entry.state() != IndexEntry.State.UNFINISHED ? null : entry;
  }

  IdCursor all(boolean descending) {
    return all.cursor(descending);
  }

  IdCursor queue(String queue, boolean descending) {
    return cursor(byQueue, queue, descending);
  }

  IdCursor type(String type, boolean descending) {
    return cursor(byType, type, descending);
  }

  private static IdCursor cursor(Map<String, IdSet> sets, String name, boolean descending) {
    IdSet set = sets.get(name);
    return set == null ? NONE : set.cursor(descending);
  }

  private void join(Map<String, IdSet> sets, String name, JobId id) {
    if (name != null) {
      IdSet set = sets.get(name);
      if (set == null) {
        set = new IdSet();
        sets.put(name, set);
        setsMade++;
      }
      set.add(id);
      set.keepAtNextLook = true;
    }
  }

  private void leave(Map<String, IdSet> sets, String name, JobId id) {
    if (name == null) {
      return;
    }
    IdSet set = sets.get(name);
    if (set != null && set.remove(id) && set.isEmpty() && !set.listedEmpty) {
      set.listedEmpty = true;
      set.keepAtNextLook = false;
      emptied.add(new Emptied(sets, name, set));
      if (emptied.size() >= pruneAt) {
        prune();
      }
    }
  }

  private void prune() {
    int kept = 0;
    for (Emptied left : emptied) {
      IdSet set = left.set();
      if (!set.isEmpty()) {
        set.listedEmpty = false; // in use: listed again when it next empties
      } else if (set.keepAtNextLook) {
        set.keepAtNextLook = false;
        emptied.set(kept++, left);
      } else {
        set.listedEmpty = false;
        left.sets().remove(left.name(), set);
      }
    }
    emptied.subList(kept, emptied.size()).clear();
    pruneAt = Math.max(PRUNE_AT, 2 * kept);
  }

  /** Queue and type sets made so far, for tests. */
  long setsMade() {
    return setsMade;
  }

  /** Queue and type sets held, empty ones included. */
  int setsHeld() {
    return byQueue.size() + byType.size();
  }
}

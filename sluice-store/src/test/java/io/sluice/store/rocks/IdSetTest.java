package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class IdSetTest {
  private static JobId id(long lo) {
    return new JobId(7, lo);
  }

  private static List<JobId> walk(IdCursor cursor) {
    List<JobId> ids = new ArrayList<>();
    for (; cursor.current() != null; cursor.next()) {
      ids.add(Keys.jobId(cursor.current()));
    }
    return ids;
  }

  private static List<JobId> from(IdSet set, long seekLo, boolean descending) {
    IdCursor cursor = set.cursor(descending);
    cursor.seek(Keys.job(id(seekLo)));
    return walk(cursor);
  }

  /** Random adds (mostly ascending, some older ids) and removals, against a TreeSet. */
  @Test
  void matchesASortedSetUnderMostlyOrderedAddsAndRemovals() {
    for (long seed = 1; seed <= 5; seed++) {
      Random random = new Random(seed);
      IdSet set = new IdSet();
      TreeSet<JobId> model = new TreeSet<>();
      long next = 1_000;
      for (int step = 0; step < 20_000; step++) {
        int roll = random.nextInt(10);
        if (roll < 5) {
          JobId id = id(next += 1 + random.nextInt(3));
          set.add(id);
          model.add(id);
        } else if (roll < 6) {
          JobId id = id(random.nextInt((int) next));
          if (!model.contains(id)) {
            set.add(id);
            model.add(id);
          }
        } else if (!model.isEmpty()) {
          JobId id = random.nextInt(4) == 0 ? model.last()
              : random.nextBoolean() ? model.first() : id(random.nextInt((int) next + 5));
          assertThat(set.remove(id)).as("remove %s", id).isEqualTo(model.remove(id));
        }
        if (step % 997 == 0) {
          assertThat(walk(set.cursor(false))).containsExactlyElementsOf(model);
          assertThat(walk(set.cursor(true))).containsExactlyElementsOf(model.descendingSet());
          long target = random.nextInt((int) next + 10);
          assertThat(from(set, target, false))
              .containsExactlyElementsOf(model.tailSet(id(target), true));
          assertThat(from(set, target, true))
              .containsExactlyElementsOf(model.headSet(id(target), true).descendingSet());
        }
        assertThat(set.isEmpty()).isEqualTo(model.isEmpty());
      }
    }
  }

  /**
   * What a drain does: ids leave a few at a time, out of order within a window near the oldest,
   * while new ones arrive; now and then one far older, one never held or a straggler leaves.
   */
  @Test
  void matchesASortedSetWhenIdsLeaveNearlyInOrder() {
    for (long seed = 1; seed <= 3; seed++) {
      Random random = new Random(seed);
      IdSet set = new IdSet();
      TreeSet<JobId> model = new TreeSet<>();
      long next = 1_000; // room below for stragglers
      for (int step = 0; step < 60_000; step++) {
        if (model.size() < 200 || random.nextInt(2) == 0) {
          JobId id = id(next += 1 + random.nextInt(2));
          set.add(id);
          model.add(id);
          if (random.nextInt(500) == 0) {
            JobId older = id(next - 1 - random.nextInt(300));
            if (model.add(older)) {
              set.add(older); // a straggler, in the span of a chunk
            }
          }
          continue;
        }
        JobId id;
        int roll = random.nextInt(100);
        if (roll < 90) {
          List<JobId> window = new ArrayList<>(model.headSet(id(model.first().lo() + 64), true));
          id = window.get(random.nextInt(window.size()));
        } else if (roll < 95) {
          id = id(model.first().lo() + random.nextInt((int) (next - model.first().lo()) + 1));
        } else {
          id = id(random.nextInt((int) next + 10));
        }
        assertThat(set.remove(id)).as("remove %s", id).isEqualTo(model.remove(id));
        if (step % 4_999 == 0) {
          assertThat(walk(set.cursor(false))).containsExactlyElementsOf(model);
        }
      }
      assertThat(walk(set.cursor(false))).containsExactlyElementsOf(model);
      for (JobId id : new ArrayList<>(model)) {
        assertThat(set.remove(id)).isTrue();
      }
      assertThat(set.isEmpty()).isTrue();
    }
  }

  /** A few long-lived ids among many finished ones keep small chunks, not whole ones. */
  @Test
  void copiesChunksWithFewIdsLeftIntoSmallerOnes() {
    IdSet set = new IdSet();
    List<JobId> kept = new ArrayList<>();
    int count = 100 * IdSet.MAX_CHUNK_IDS;
    for (long i = 0; i < count; i++) {
      set.add(id(i));
    }
    for (long i = 0; i < count; i++) {
      if (i % 1000 == 0) {
        kept.add(id(i));
      } else {
        assertThat(set.remove(id(i))).isTrue();
      }
    }

    assertThat(walk(set.cursor(false))).containsExactlyElementsOf(kept);
    assertThat(set.slots()).as("id slots for %d ids", kept.size())
        .isLessThanOrEqualTo(16L * kept.size() + IdSet.MAX_CHUNK_IDS);
    for (JobId id : kept) {
      assertThat(set.remove(id)).isTrue();
    }
    assertThat(set.isEmpty()).isTrue();
  }

  @Test
  void dropsChunksWhoseIdsAreAllGone() {
    IdSet set = new IdSet();
    for (long i = 0; i < 10 * IdSet.MAX_CHUNK_IDS; i++) {
      set.add(id(i));
    }
    for (long i = 0; i < 10 * IdSet.MAX_CHUNK_IDS - 1; i++) {
      assertThat(set.remove(id(i))).isTrue();
    }
    assertThat(walk(set.cursor(false))).containsExactly(id(10L * IdSet.MAX_CHUNK_IDS - 1));
    assertThat(set.chunkCount()).isEqualTo(1);
    assertThat(set.remove(id(0))).isFalse();
  }
}

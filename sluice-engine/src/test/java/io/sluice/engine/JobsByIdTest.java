package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobStatus;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class JobsByIdTest {
  private static Job job(JobId id) {
    return new Job(id, "t", "q", 0, JobStatus.READY, 0);
  }

  @Test
  void anEmptyTableHoldsNothing() {
    JobsById table = new JobsById();
    assertThat(table.get(new JobId(1, 2))).isNull();
    assertThat(table.remove(new JobId(1, 2))).isNull();
    assertThat(table.isEmpty()).isTrue();
    assertThat(table.values()).isEmpty();
  }

  @Test
  void putReplacesTheJobHeldUnderTheSameId() {
    JobsById table = new JobsById();
    Job first = job(new JobId(5, 6));
    Job second = job(new JobId(5, 6));
    assertThat(table.put(first)).isNull();
    assertThat(table.put(second)).isSameAs(first);
    assertThat(table.size()).isEqualTo(1);
    assertThat(table.get(new JobId(5, 6))).isSameAs(second);
  }

  /**
   * Random puts, gets and removes of ids drawn from a pool a few times the table's smallest size,
   * checked against a hash map after every step: runs of neighbouring slots form, wrap around the
   * end of the table and are cut by removals, which must leave every other job reachable.
   */
  @Test
  void agreesWithAHashMapThroughGrowthAndChurn() {
    for (long seed = 1; seed <= 5; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(seed));
      List<JobId> pool = new ArrayList<>();
      for (int i = 0; i < 3_000; i++) {
        pool.add(ids.next(1_000 + i / 500));
      }
      JobsById table = new JobsById();
      Map<JobId, Job> expected = new HashMap<>();
      for (int step = 0; step < 100_000; step++) {
        JobId id = pool.get(random.nextInt(pool.size()));
        int op = random.nextInt(10);
        if (op < 4) {
          Job job = job(id);
          assertThat(table.put(job)).isSameAs(expected.put(id, job));
        } else if (op < 7) {
          assertThat(table.remove(id)).isSameAs(expected.remove(id));
        } else {
          assertThat(table.get(id)).isSameAs(expected.get(id));
        }
        assertThat(table.size()).isEqualTo(expected.size());
      }
      for (JobId id : pool) {
        assertThat(table.get(id)).isSameAs(expected.get(id));
      }
      assertThat(new HashSet<>(table.values())).isEqualTo(new HashSet<>(expected.values()));
    }
  }

  @Test
  void aTableSizedAheadHoldsItsJobsWithoutLosingAny() {
    JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(3));
    JobsById table = new JobsById(50_000);
    List<JobId> held = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      JobId id = ids.next(7);
      held.add(id);
      table.put(job(id));
    }
    for (int i = 0; i < held.size(); i += 2) {
      assertThat(table.remove(held.get(i))).isNotNull();
    }
    assertThat(table.size()).isEqualTo(50_000);
    for (int i = 0; i < held.size(); i++) {
      assertThat(table.get(held.get(i)) != null).isEqualTo(i % 2 == 1);
    }
  }

  @Test
  void aDrainedTableKeepsItsSlotsUntilShrunkAndStillFindsWhatIsLeft() {
    JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(11));
    JobsById table = new JobsById();
    List<JobId> held = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      JobId id = ids.next(9);
      held.add(id);
      table.put(job(id));
    }
    int grown = table.capacity();
    assertThat(table.oversized()).isFalse();
    for (int i = 10; i < held.size(); i++) {
      table.remove(held.get(i));
    }
    assertThat(table.capacity()).isEqualTo(grown);
    assertThat(table.oversized()).isTrue();

    table.shrink();

    assertThat(table.capacity()).isEqualTo(1024);
    assertThat(table.oversized()).isFalse();
    assertThat(table.size()).isEqualTo(10);
    for (int i = 0; i < held.size(); i++) {
      assertThat(table.get(held.get(i)) != null).isEqualTo(i < 10);
    }
    assertThat(table.values()).hasSize(10);
  }

  /** A table that held the ids (i, i) below {@code filled}; those below {@code left} remain. */
  private static JobsById drainedTo(int filled, int left) {
    JobsById table = new JobsById();
    for (int i = 0; i < filled; i++) {
      table.put(job(new JobId(i, i)));
    }
    for (int i = left; i < filled; i++) {
      table.remove(new JobId(i, i));
    }
    return table;
  }

  @Test
  void aShrunkTableHoldsTwiceWhatIsLeftBeforeItMustGrow() {
    JobsById table = drainedTo(100_000, 3_000);
    table.shrink();
    assertThat(table.capacity()).isEqualTo(16_384);
    for (int i = 3_000; i < 6_000; i++) {
      table.put(job(new JobId(i, i)));
    }
    assertThat(table.capacity()).isEqualTo(16_384);
    for (int i = 0; i < 6_000; i++) {
      assertThat(table.get(new JobId(i, i))).isNotNull();
    }
  }

  @Test
  void shrinkingWhileIteratingFailsFast() {
    JobsById table = drainedTo(2_000, 1);
    Iterator<Job> jobs = table.values().iterator();
    table.shrink();
    assertThatThrownBy(jobs::next).isInstanceOf(ConcurrentModificationException.class);
  }

  @Test
  void iteratingWhileTheTableChangesFailsFast() {
    JobsById table = new JobsById();
    table.put(job(new JobId(1, 1)));
    table.put(job(new JobId(2, 2)));
    assertThatThrownBy(() -> {
      for (Job job : table.values()) {
        table.remove(job.id());
      }
    }).isInstanceOf(ConcurrentModificationException.class);
  }
}

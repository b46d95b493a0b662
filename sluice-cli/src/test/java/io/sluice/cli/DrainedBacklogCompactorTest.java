package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.MemoryPoolMXBean;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DrainedBacklogCompactorTest {
  private static final long MIB = 1L << 20;

  /** An old generation the test fills, which a full collection shrinks to its live bytes. */
  private static final class FakeOldGeneration implements OldGeneration {
    long used = 40 * MIB;
    long liveAfterCollection = 30 * MIB;
    int collections;
    boolean failNext;

    @Override
    public long usedBytes() {
      return used;
    }

    @Override
    public void collectFully() {
      if (failNext) {
        failNext = false;
        throw new IllegalStateException("collection failed");
      }
      collections++;
      used = liveAfterCollection;
    }
  }

  private final FakeOldGeneration old = new FakeOldGeneration();
  private final List<Runnable> pending = new ArrayList<>();
  private long held;
  private long active;
  private final DrainedBacklogCompactor compactor =
      new DrainedBacklogCompactor(() -> held, () -> active, old, pending::add);

  private void turn(long heldNow, long activeNow) {
    held = heldNow;
    active = activeNow;
    compactor.published();
  }

  /** 100,000 jobs held then worked off, the old generation growing by {@code growth} meanwhile. */
  private void workOffABacklog(long growth) {
    turn(100_000, 100_000);
    old.used += growth;
    turn(0, 0);
  }

  private void runPending() {
    List<Runnable> now = List.copyOf(pending);
    pending.clear();
    now.forEach(Runnable::run);
  }

  @Test
  void compactsOnceWhenALargeBacklogIsWorkedOffAndTheOldGenerationGrew() {
    turn(100_000, 100_000);
    old.used += DrainedBacklogCompactor.GROWTH_BYTES;
    turn(50_000, 50_000);
    turn(0, 0);
    assertThat(pending).hasSize(1);
    runPending();
    assertThat(old.collections).isEqualTo(1);

    turn(0, 0);
    turn(3, 3);
    turn(0, 0);
    runPending();
    assertThat(old.collections).as("nothing new was worked off since").isEqualTo(1);
  }

  @Test
  void waitsUntilNoJobIsReadyOrInFlight() {
    turn(20_000, 20_000);
    old.used += 64 * MIB;
    turn(5_000, 5_000);
    turn(1, 1);
    assertThat(pending).isEmpty();
    turn(0, 0);
    assertThat(pending).hasSize(1);
  }

  @Test
  void aBacklogLeavingScheduledJobsHeldStillCounts() {
    turn(100_000, 60_000);
    old.used += 64 * MIB;
    turn(40_000, 0);
    assertThat(pending).hasSize(1);
  }

  @Test
  void notWhenMoreJobsStayHeldThanWereWorkedOff() {
    turn(1_000_000, 0);
    turn(1_030_000, 30_000);
    old.used += 64 * MIB;
    turn(1_000_000, 0);
    assertThat(pending).isEmpty();

    turn(1_000_000, 0);
    turn(0, 0);
    assertThat(pending).as("once they are worked off too").hasSize(1);
  }

  @Test
  void aSteadyTrickleNeverCompacts() {
    for (int i = 0; i < 100_000; i++) {
      turn(i % 3, i % 3);
      old.used += 1024;
    }
    assertThat(old.used - 40 * MIB).isGreaterThan(DrainedBacklogCompactor.GROWTH_BYTES);
    assertThat(pending).isEmpty();
  }

  @Test
  void fewerJobsThanABacklogDoNotCompact() {
    turn(DrainedBacklogCompactor.BACKLOG_JOBS - 1, DrainedBacklogCompactor.BACKLOG_JOBS - 1);
    old.used += 64 * MIB;
    turn(0, 0);
    assertThat(pending).isEmpty();
  }

  @Test
  void aSmallGrowthDoesNotCompactAndTheBacklogIsForgotten() {
    workOffABacklog(DrainedBacklogCompactor.GROWTH_BYTES - 1);
    assertThat(pending).isEmpty();

    old.used += 1;
    turn(0, 0);
    turn(2, 2);
    turn(0, 0);
    assertThat(pending).as("the worked-off backlog was already weighed").isEmpty();
  }

  @Test
  void growthIsMeasuredFromWhatTheLastCompactionLeft() {
    workOffABacklog(64 * MIB);
    runPending();
    assertThat(old.used).isEqualTo(30 * MIB);

    turn(100_000, 100_000);
    old.used = 30 * MIB + DrainedBacklogCompactor.GROWTH_BYTES - 1;
    turn(0, 0);
    assertThat(pending).isEmpty();

    workOffABacklog(1);
    assertThat(pending).hasSize(1);
  }

  @Test
  void oneCompactionAtATime() {
    workOffABacklog(64 * MIB);
    workOffABacklog(0);
    assertThat(pending).as("the first has not run yet").hasSize(1);

    runPending();
    workOffABacklog(64 * MIB);
    assertThat(pending).hasSize(1);
  }

  @Test
  void aFailedCompactionDoesNotBlockTheNext() {
    old.failNext = true;
    workOffABacklog(64 * MIB);
    assertThatThrownBy(this::runPending).hasMessage("collection failed");

    workOffABacklog(0);
    runPending();
    assertThat(old.collections).isEqualTo(1);
  }

  @Test
  void onlyACollectorThatFillsItsOldGenerationUpwardIsCompacted() {
    assertThat(OldGeneration.filledUpward(List.of(pool("Eden Space"), pool("Tenured Gen"))))
        .isPresent();
    assertThat(OldGeneration.filledUpward(List.of(pool("PS Eden Space"), pool("PS Old Gen"))))
        .isPresent();
    assertThat(OldGeneration.filledUpward(List.of(pool("G1 Eden Space"), pool("G1 Old Gen"))))
        .isEmpty();
    assertThat(OldGeneration.filledUpward(List.of(pool("ZHeap")))).isEmpty();
  }

  private static MemoryPoolMXBean pool(String name) {
    return (MemoryPoolMXBean) Proxy.newProxyInstance(MemoryPoolMXBean.class.getClassLoader(),
        new Class<?>[] {MemoryPoolMXBean.class}, (proxy, method, args) -> {
          if (method.getName().equals("getName")) {
            return name;
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }
}

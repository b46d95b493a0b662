package io.sluice.engine.budget;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import org.junit.jupiter.api.Test;

/** Quiet partitions are watched once, at the earliest instant they may be idle. */
class QuietPoolsTest {
  /** 1,000 tokens an hour: a spent pool takes long to fill. */
  private static final BudgetPolicy SLOW =
      new BudgetPolicy(1_000, StrategyType.TIME_BASED, 3_600_000, null);

  private final QuietPools quiet = new QuietPools();
  private final Budget budget = new Budget("per-account", SLOW, true, 0, 0, 0);

  @Test
  void aPartitionThatEmptiesAfterEveryJobIsWatchedOnce() {
    Pool pool = budget.pool("a", 0);
    long firstIdleMs = -1;
    for (int i = 1; i <= 500; i++) {
      Job job = new Job(new JobId(0, i), "t", "q", 1, JobStatus.READY, 0);
      pool.park(job, 1);
      pool.bucket().tryAcquire(1, i);
      pool.unpark(job, 1);
      quiet.watch(pool, i);
      if (i == 1) {
        firstIdleMs = quiet.nextDueMs();
      }
    }

    assertThat(quiet.watched()).isEqualTo(1);
    assertThat(quiet.nextDueMs()).isEqualTo(firstIdleMs);
    // Due, it is not idle (499 more tokens spent since): watched again, still once.
    int[] forgotten = {0};
    quiet.forgetIdle(firstIdleMs, forgottenPool -> forgotten[0]++);
    assertThat(forgotten[0]).isZero();
    assertThat(quiet.watched()).isEqualTo(1);
    assertThat(quiet.nextDueMs()).isGreaterThan(firstIdleMs);
  }
}

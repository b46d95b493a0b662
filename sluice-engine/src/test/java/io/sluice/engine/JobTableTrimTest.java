package io.sluice.engine;

import static io.sluice.engine.JobTable.SHRINK_AFTER_MS;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The table of jobs by id gives its slots back only once it has stayed oversized a while. */
class JobTableTrimTest {
  private static final int BURST = 20_000;

  private final EngineHarness h = EngineHarness.create();

  private int capacity() {
    return h.engine().rooms().jobs.capacity();
  }

  /** Enqueues a burst on {@code queue}, takes all of it and completes it. */
  private void burstDrained(String queue, int jobs) {
    burstDrainedTo(queue, jobs, 0);
  }

  /** Enqueues a burst, takes it and completes all of it but the first {@code left} jobs taken. */
  private List<JobId> burstDrainedTo(String queue, int jobs, int left) {
    h.enqueue(jobs, queue);
    h.openWorker(queue, 0);
    List<JobId> kept = new ArrayList<>();
    int taken = 0;
    while (taken < jobs) {
      List<JobId> delivered = h.dispatch().stream().map(JobSnapshot::id).toList();
      assertThat(delivered).isNotEmpty();
      taken += delivered.size();
      int keep = Math.min(left - kept.size(), delivered.size());
      kept.addAll(delivered.subList(0, keep));
      List<JobId> done = delivered.subList(keep, delivered.size());
      assertThat(h.completeAll(done.toArray(JobId[]::new))).isEmpty();
    }
    return kept;
  }

  @Test
  void aDrainedTableShrinksOnceItHasStayedOversizedForTheDelay() {
    List<JobId> left = burstDrainedTo("a", BURST, 10);
    int grown = capacity();
    assertThat(grown).isGreaterThanOrEqualTo(2 * BURST);

    h.runDue();
    long seenAt = h.nowMs();
    assertThat(h.engine().nextDeadlineMs()).isEqualTo(seenAt + SHRINK_AFTER_MS);
    h.advanceMs(SHRINK_AFTER_MS - 1);
    h.runDue();
    assertThat(capacity()).isEqualTo(grown);

    h.advanceMs(1);
    h.runDue();
    assertThat(capacity()).isLessThan(grown / 16);
    assertThat(h.engine().nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
    assertThat(h.engine().jobCount()).isEqualTo(10);
    for (JobId id : left) {
      assertThat(h.get(id).id()).isEqualTo(id);
    }
  }

  @Test
  void aBurstWithinTheDelayFindsTheTableStillGrownAndItIsNotShrunkAfter() {
    burstDrained("a", BURST);
    int grown = capacity();
    h.runDue();
    h.advanceMs(SHRINK_AFTER_MS / 2);
    h.runDue();
    assertThat(capacity()).isEqualTo(grown);

    h.enqueue(BURST, "a");
    h.advanceMs(SHRINK_AFTER_MS);
    h.runDue();

    assertThat(capacity()).isEqualTo(grown);
    assertThat(h.engine().nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theDelayStartsAgainWhenTheTableIsNoLongerOversizedInBetween() {
    burstDrained("a", BURST);
    int grown = capacity();
    h.runDue();
    h.advanceMs(SHRINK_AFTER_MS - 1);

    // Half a burst fills the table past an eighth; the turn that drains it below again restarts
    // the delay at this instant.
    burstDrained("b", BURST / 2);
    long restartedAt = h.nowMs();
    assertThat(h.engine().nextDeadlineMs()).isEqualTo(restartedAt + SHRINK_AFTER_MS);

    h.advanceMs(1);
    h.runDue();
    assertThat(capacity()).isEqualTo(grown);
    h.advanceMs(SHRINK_AFTER_MS - 2);
    h.runDue();
    assertThat(capacity()).isEqualTo(grown);
    h.advanceMs(1);
    h.runDue();
    assertThat(capacity()).isLessThan(grown);
  }
}

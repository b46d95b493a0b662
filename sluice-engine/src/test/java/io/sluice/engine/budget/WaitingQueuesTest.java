package io.sluice.engine.budget;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RankedJobs;
import org.junit.jupiter.api.Test;

/** A pool's waiting queues: the first job queue held in fields, further ones in a map. */
class WaitingQueuesTest {
  private final WaitingQueues waiting = new WaitingQueues();

  private static Job job(String queue, long id) {
    return new Job(new JobId(0, id), "t", queue, 1, JobStatus.READY, 0);
  }

  @Test
  void keepsEachQueueInDispatchOrderAndCountsWhatComesBefore() {
    Job a2 = job("a", 2);
    Job a1 = job("a", 1);
    Job b3 = job("b", 3);
    assertThat(waiting.add(a2, 5)).isTrue();
    assertThat(waiting.add(a1, 1)).isTrue();
    assertThat(waiting.add(b3, 2)).isTrue();
    assertThat(waiting.add(a1, 1)).as("already waiting").isFalse();

    assertThat(waiting.get("a").first()).isSameAs(a1);
    assertThat(waiting.get("b").first()).isSameAs(b3);
    assertThat(waiting.get("c")).isNull();
    assertThat(waiting.queues()).containsExactlyInAnyOrder("a", "b");
    assertThat(waiting.before(b3)).isEqualTo(new RankedJobs.Ahead(2, 6));
    assertThat(waiting.anyBefore(a1)).isFalse();
    assertThat(waiting.anyBefore(a2)).isTrue();
  }

  @Test
  void aSecondQueueTakesTheFirstsPlaceWhenTheFirstEmpties() {
    Job a1 = job("a", 1);
    Job b2 = job("b", 2);
    Job c3 = job("c", 3);
    waiting.add(a1, 1);
    waiting.add(b2, 1);
    waiting.add(c3, 1);

    assertThat(waiting.remove(a1)).isTrue();
    assertThat(waiting.remove(a1)).isFalse();
    assertThat(waiting.get("a")).isNull();
    assertThat(waiting.queues()).containsExactlyInAnyOrder("b", "c");
    assertThat(waiting.remove(b2)).isTrue();
    assertThat(waiting.queues()).containsExactly("c");
    assertThat(waiting.isEmpty()).isFalse();
    assertThat(waiting.remove(c3)).isTrue();
    assertThat(waiting.isEmpty()).isTrue();
    assertThat(waiting.queues()).isEmpty();

    Job d4 = job("d", 4);
    waiting.add(d4, 1);
    assertThat(waiting.get("d").first()).isSameAs(d4);
  }
}

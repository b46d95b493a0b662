package io.sluice.engine;

import static io.sluice.engine.EngineHarness.failure;
import static io.sluice.engine.EngineHarness.job;
import static io.sluice.engine.EngineHarness.killingFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.RetentionPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the engine publishes for metrics and live views without being asked through a command:
 * jobs per queue and status, and what it tells its observer as jobs move.
 */
class EngineCountsTest {
  private final EngineHarness h = EngineHarness.create();
  private final List<String> told = new ArrayList<>();

  EngineCountsTest() {
    h.engine().observe(new EngineObserver() {
      @Override
      public void enqueued(String queue) {
        told.add("enqueued " + queue);
      }

      @Override
      public void dispatched(String queue, long waitedMs) {
        told.add("dispatched " + queue + " after " + waitedMs);
      }

      @Override
      public void completed(String queue, long ranMs) {
        told.add("completed " + queue + " after " + ranMs);
      }

      @Override
      public void failed(String queue, long ranMs, boolean dead) {
        told.add((dead ? "died " : "failed ") + queue + " after " + ranMs);
      }
    });
  }

  @Test
  void countsFollowEveryJobThroughItsStatusesAndQueues() {
    RetentionPolicy kept = new RetentionPolicy(60_000L, 60_000L);
    JobSnapshot first = h.enqueue(job("a").retention(kept));
    JobSnapshot second = h.enqueue(job("a").retention(kept));
    h.enqueue(job("b").readyAtMs(h.nowMs() + 1_000));
    assertThat(h.engine().queueCounts()).containsOnlyKeys("a", "b");
    assertThat(h.engine().queueCounts().get("a")).isEqualTo(new QueueCounts(0, 2, 0, 0, 0));
    assertThat(h.engine().queueCounts().get("b")).isEqualTo(new QueueCounts(1, 0, 0, 0, 0));

    h.openWorker("a", 2);
    h.dispatch();
    assertThat(h.engine().queueCounts().get("a")).isEqualTo(new QueueCounts(0, 0, 2, 0, 0));
    h.ack(first.id());
    h.fail(second.id(), killingFailure());
    assertThat(h.engine().queueCounts().get("a")).isEqualTo(new QueueCounts(0, 0, 0, 1, 1));

    h.turn((engine, nowMs) -> {
      engine.delete(first.id(), nowMs);
      engine.delete(second.id(), nowMs);
      return null;
    });
    assertThat(h.engine().queueCounts()).containsOnlyKeys("b");
  }

  @Test
  void theObserverHearsOfEnqueuesDispatchesAndAcknowledgements() {
    JobSnapshot done = h.enqueue("a");
    JobSnapshot retried = h.enqueue("a");
    JobSnapshot killed = h.enqueue("a");
    h.advanceMs(40);
    h.openWorker("a", 3);
    h.dispatch();
    h.advanceMs(7);
    h.ack(done.id());
    h.fail(retried.id(), failure("flaky"));
    h.fail(killed.id(), killingFailure());

    assertThat(told).containsExactly(
        "enqueued a", "enqueued a", "enqueued a",
        "dispatched a after 40", "dispatched a after 40", "dispatched a after 40",
        "completed a after 7", "failed a after 7", "died a after 7");
  }
}

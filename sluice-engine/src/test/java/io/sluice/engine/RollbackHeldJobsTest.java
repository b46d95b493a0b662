package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.MemoryJobStore;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A commit that lands after a rollback (its turn was durable, a later one failed) hands back
 * job objects of the table the rollback replaced: they are no longer held, so only the jobs read
 * back from the store are placed, and each is delivered once.
 */
class RollbackHeldJobsTest {
  @Test
  void jobsOfAReplacedTableAreNotPlacedWhenTheirCommitLands() {
    MemoryJobStore store = new MemoryJobStore();
    EngineHarness harness = EngineHarness.writingTo(store);
    Engine engine = harness.engine();
    long now = harness.nowMs();
    NewJob request = new NewJob(new JobIdGenerator().next(now), "t", "q",
        NewJob.DEFAULT_PRIORITY, null, null, null, null, "{}".getBytes(StandardCharsets.UTF_8));

    engine.enqueue(List.of(request), now);
    Turn durable = engine.takeTurn();
    store.commit(new CommitBatch(durable.mutations(), false));
    engine.rollBack(store, List.of(), now); // a later turn's commit failed
    engine.committed(durable.newJobs(), now);
    assertThat(durable.newJobs()).singleElement()
        .satisfies(job -> assertThat(job.held()).isFalse());

    EngineHarness.Worker worker = harness.openWorker("q", 10);
    harness.dispatch();
    harness.dispatch();
    assertThat(worker.receivedIds()).containsExactly(request.id());
  }
}

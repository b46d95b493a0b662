package io.sluice.engine.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.store.Mutation;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The same commands with the same id seed have the same effects after a rollback too: a rebuilt
 * stream holds its jobs in an order that does not depend on object hashes, so closing it later
 * requeues them in the same order on every run.
 */
class RollbackDeterminismTest {
  private static final long T0 = ReplayRun.START_MS;
  private static final int JOBS = 12;

  @Test
  void aStreamClosedAfterARollbackRequeuesItsJobsInTheSameOrderOnEveryRun() {
    List<Mutation> first = requeuesAfterARollback();
    List<Mutation> second = requeuesAfterARollback();

    assertThat(first).hasSize(JOBS);
    assertThat(Canonical.render(second)).isEqualTo(Canonical.render(first));
  }

  /** The writes of closing a stream that held {@link #JOBS} jobs when a commit failed. */
  private static List<Mutation> requeuesAfterARollback() {
    JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(3));
    Engine engine =
        new Engine(EngineConfig.defaults(), new ConcatBatches(), ids, ZoneOffset.UTC);
    MemoryJobStore store = new MemoryJobStore();
    LoopTurns loop = new LoopTurns(engine, store);
    loop.turn(T0, (e, now) -> {
      List<NewJob> jobs = new ArrayList<>();
      for (int i = 0; i < JOBS; i++) {
        jobs.add(new NewJob(ids.next(now), "t", "work", 0, null, null, null, null,
            ConcatBatches.payload(1)));
      }
      return e.enqueue(jobs, true, now);
    });
    WorkerSession stream =
        loop.turn(T0, (e, now) -> e.openSession(Set.of("work"), JOBS, jobs -> { }));
    engine.enqueue(List.of(new NewJob(ids.next(T0), "t", "other", 0, null, null, null, null,
        ConcatBatches.payload(1))), T0);
    engine.rollBack(store, List.of(loop.endWithFailedCommit(T0)), T0);
    loop.end(T0);

    engine.closeSession(stream, T0);
    return engine.takeTurn().mutations();
  }
}

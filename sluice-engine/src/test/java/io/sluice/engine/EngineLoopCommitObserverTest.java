package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.MemoryJobStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The loop tells the engine's observer of every successful store commit and its mode. */
class EngineLoopCommitObserverTest {
  private record Commit(boolean synced, long nanos) {}

  private final List<Commit> commits = new CopyOnWriteArrayList<>();
  private final MemoryJobStore store = new MemoryJobStore();
  private final JobIdGenerator ids = new JobIdGenerator();
  private EngineLoop loop;

  @AfterEach
  void stop() {
    loop.close();
  }

  private void start(boolean syncEnqueues) {
    Engine engine = new Engine(EngineConfig.defaults());
    engine.observe(new EngineObserver() {
      @Override
      public void committed(boolean synced, long nanos) {
        commits.add(new Commit(synced, nanos));
      }
    });
    loop = new EngineLoop(engine, store, Clock.systemUTC(),
        new EngineLoop.CommitModes(syncEnqueues, false));
    loop.start();
  }

  private void enqueue() {
    NewJob job = new NewJob(ids.next(System.currentTimeMillis()), "t", "q",
        NewJob.DEFAULT_PRIORITY, null, null, null, null, "{}".getBytes(StandardCharsets.UTF_8));
    loop.submit(EngineLoop.Kind.ENQUEUE, (engine, nowMs) -> engine.enqueue(List.of(job), nowMs))
        .join();
  }

  @Test
  void aBufferedCommitIsReportedAsNotSynced() {
    start(false);
    enqueue();

    assertThat(commits).hasSize(1);
    assertThat(commits.get(0).synced()).isFalse();
    assertThat(commits.get(0).nanos()).isPositive();
  }

  @Test
  void anFsyncedCommitIsReportedAsSynced() {
    start(true);
    enqueue();

    assertThat(commits).hasSize(1);
    assertThat(commits.get(0).synced()).isTrue();
  }

  @Test
  void aTurnThatWritesNothingIsNoCommit() {
    start(false);
    loop.call((engine, nowMs) -> engine.queueNames());

    assertThat(commits).isEmpty();
  }
}

package io.sluice.engine.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobPatch;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.MemoryJobStore;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A difference {@link FailedCommitPropertyTest} found between a live engine and one rebuilt from
 * the store (by a rollback or a restart); the property skips the failed turns that reach it. A
 * job in flight gets a later {@code ready_at} (API.md §8.16: for an in-flight job it "takes
 * effect only for later transitions"); its stream ends. The live engine requeues it as ready
 * ({@code TakeStreams.close}, API.md §4.1: "status → ready; ready_at unchanged"), so it is
 * dispatched at once, and its record is written as ready. Rebuilt from that record, the engine
 * places it by its ready_at ({@code Placement.place}): it is scheduled until then.
 *
 * <p>This test pins that behaviour down as it is; it fails once the two agree.
 */
class RequeuedJobWithALaterReadyAtTest {
  private static final long T0 = ReplayRun.START_MS;
  private static final long LATER = T0 + 60_000;

  private final JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(5));
  private final Engine live = newEngine();
  private final MemoryJobStore store = new MemoryJobStore();
  private final LoopTurns loop = new LoopTurns(live, store);

  private static Engine newEngine() {
    return new Engine(EngineConfig.defaults(), new ConcatBatches(),
        new JobIdGenerator(new SplittableRandom(1)), ZoneOffset.UTC);
  }

  @Test
  void aRequeuedJobWhoseReadyAtIsLaterIsReadyLiveButScheduledWhenRebuilt() {
    JobId id = loop.turn(T0, (engine, now) -> engine.enqueue(List.of(new NewJob(ids.next(now),
        "t", "work", 0, null, null, null, null, ConcatBatches.payload(1))), now).get(0).id());
    List<JobSnapshot> delivered = new ArrayList<>();
    WorkerSession stream =
        loop.turn(T0, (engine, now) -> engine.openSession(Set.of("work"), 1, delivered::addAll));
    loop.turn(T0, (engine, now) -> engine.patch(id, new JobPatch(null, null, true, LATER, false,
        null, false, null, false, false, false, null, false, null), now));
    loop.turn(T0, (engine, now) -> {
      engine.closeSession(stream, now);
      return null;
    });
    Engine rebuilt = newEngine();
    rebuilt.recoverFrom(store, T0);

    assertThat(delivered).extracting(JobSnapshot::id).containsExactly(id);
    assertThat(store.readJob(id).status()).isEqualTo(JobStatus.READY);
    assertThat(live.get(id, T0).status()).isEqualTo(JobStatus.READY);
    assertThat(rebuilt.get(id, T0).status()).isEqualTo(JobStatus.SCHEDULED);
    assertThat(live.get(id, T0).readyAtMs()).isEqualTo(LATER);
  }
}

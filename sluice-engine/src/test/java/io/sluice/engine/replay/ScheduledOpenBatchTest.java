package io.sluice.engine.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.job.Enqueued;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobPatch;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.MemoryJobStore;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A difference {@link FailedCommitPropertyTest} found between a live engine and one rebuilt from
 * the store (by a rollback or a restart); the property lets it pass. The open job of a batch is
 * patched to a later {@code ready_at}: it is scheduled, and enqueues do not fold into it (API.md
 * §4.6 rule 3), but the live engine keeps it as its key's open batch, in memory and on disk, and
 * folds into it again once it is ready. Rebuilt from the store, the engine keeps an open-batch
 * pointer only while its job is ready ({@code OpenBatches.recover}), so it drops this one: once
 * the job is ready again, the same enqueue opens a new batch instead of folding.
 *
 * <p>This test pins that behaviour down as it is; it fails once the two agree.
 */
class ScheduledOpenBatchTest {
  private static final long T0 = ReplayRun.START_MS;
  private static final long LATER = T0 + 5_000;

  private final JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(11));
  private final Engine live = newEngine();
  private final MemoryJobStore store = new MemoryJobStore();
  private final LoopTurns loop = new LoopTurns(live, store);

  private static Engine newEngine() {
    return new Engine(EngineConfig.defaults(), new ConcatBatches(),
        new JobIdGenerator(new SplittableRandom(1)), ZoneOffset.UTC);
  }

  private NewJob batched(long nowMs) {
    return new NewJob(ids.next(nowMs), "t", "digests", 0, null, null, null, null,
        ConcatBatches.payload(1), List.of(), null, ConcatBatches.config("digest", 10));
  }

  private static Enqueued enqueue(Engine engine, NewJob request, long nowMs) {
    return engine.enqueueAll(List.of(request), false, nowMs).get(0);
  }

  @Test
  void anOpenBatchWhoseJobIsScheduledIsKeptLiveButDroppedWhenRebuilt() {
    JobId open = loop.turn(T0, (engine, now) -> enqueue(engine, batched(now), now).job().id());
    loop.turn(T0, (engine, now) -> engine.patch(open, new JobPatch(null, null, true, LATER, false,
        null, false, null, false, false, false, null, false, null), now));
    Engine rebuilt = newEngine();
    rebuilt.recoverFrom(store, T0);

    assertThat(live.describe(T0)).contains("open-batches {digest=" + open + "}");
    assertThat(rebuilt.describe(T0)).contains("open-batches {}");
    loop.turn(LATER, (engine, now) -> null);
    rebuilt.runDue(LATER);
    NewJob next = batched(LATER);
    Enqueued liveAnswer = enqueue(live, next, LATER);
    Enqueued rebuiltAnswer = enqueue(rebuilt, next, LATER);
    assertThat(liveAnswer.folded()).isTrue();
    assertThat(liveAnswer.job().id()).isEqualTo(open);
    assertThat(rebuiltAnswer.created()).isTrue();
  }
}

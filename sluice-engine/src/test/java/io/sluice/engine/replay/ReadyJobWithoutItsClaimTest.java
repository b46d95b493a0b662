package io.sluice.engine.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.Enqueued;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.UniqueKey;
import io.sluice.engine.store.MemoryJobStore;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The one difference {@link ReplayPropertyTest} found between a live engine and the same store
 * recovered (it skips the scripts that reach it). A {@code queued} unique job A releases its key
 * when dispatched; B takes the key; A is requeued while B holds it, so A does not retake it (API.md
 * §4.5: a requeue retakes the claim only if it is free); B is deleted, releasing the key. A is
 * now ready without the claim and the key is free: a newcomer with that key is created.
 *
 * <p>Recovery cannot tell A from a job that was in flight at a crash, which is exactly a ready
 * job whose key is free, so it hands A the key ({@code UniqueClaims.retakeFreeOnRecovery}): after
 * a restart the same newcomer is answered as A's duplicate. A rollback recovers too: an
 * {@code active} job in flight that lost its key the same way holds it again afterwards.
 *
 * <p>These tests pin that behaviour down as it is; they fail once the two agree, and the
 * properties' allowances for it can then go.
 */
class ReadyJobWithoutItsClaimTest {
  private static final long T0 = ReplayRun.START_MS;
  private static final UniqueKey KEY = new UniqueKey("order-7", UniqueKey.Scope.QUEUED);

  private final JobIdGenerator ids = new JobIdGenerator(new SplittableRandom(7));
  private final Engine live = newEngine();
  private final MemoryJobStore store = new MemoryJobStore();
  private final LoopTurns loop = new LoopTurns(live, store);

  private static Engine newEngine() {
    return new Engine(EngineConfig.defaults(), new ConcatBatches(),
        new JobIdGenerator(new SplittableRandom(1)), ZoneOffset.UTC);
  }

  private NewJob unique(String queue) {
    return unique(queue, KEY);
  }

  private NewJob unique(String queue, UniqueKey key) {
    return new NewJob(ids.next(T0), "t", queue, 0, null, null, null, null,
        "{}".getBytes(StandardCharsets.UTF_8), List.of(), key, null);
  }

  private static Enqueued enqueue(Engine engine, NewJob request) {
    return engine.enqueueAll(List.of(request), false, T0).get(0);
  }

  @Test
  void aReadyJobThatLostItsKeyGetsItBackOnRecovery() {
    JobId a = loop.turn(T0, (engine, now) -> enqueue(engine, unique("work")).job().id());
    WorkerSession stream = loop.turn(T0,
        (engine, now) -> engine.openSession(Set.of("work"), 1, jobs -> { }));
    JobId b = loop.turn(T0, (engine, now) -> enqueue(engine, unique("other")).job().id());
    loop.turn(T0, (engine, now) -> {
      engine.closeSession(stream, now);
      return null;
    });
    loop.turn(T0, (engine, now) -> {
      engine.delete(b, now);
      return null;
    });
    Engine recovered = newEngine();
    recovered.recoverFrom(store, T0);

    assertThat(live.get(a, T0).status()).isEqualTo(JobStatus.READY);
    assertThat(live.describe(T0)).contains("claims {}\n");
    assertThat(recovered.describe(T0)).contains("claims {order-7=" + a + "}\n");
    NewJob newcomer = unique("work");
    Enqueued liveAnswer = enqueue(live, newcomer);
    Enqueued recoveredAnswer = enqueue(recovered, newcomer);
    assertThat(liveAnswer.created()).isTrue();
    assertThat(recoveredAnswer.duplicate()).isTrue();
    assertThat(recoveredAnswer.job()).extracting(JobSnapshot::id).isEqualTo(a);
  }

  @Test
  void anInFlightJobThatLostItsKeyHoldsItAgainAfterARollback() {
    UniqueKey active = new UniqueKey("order-7", UniqueKey.Scope.ACTIVE);
    JobId a = loop.turn(T0, (engine, now) -> enqueue(engine, unique("work", active)).job().id());
    loop.turn(T0, (engine, now) -> engine.openSession(Set.of("work"), 2, jobs -> { }));
    // Not A's duplicate: a queued newcomer does not conflict with a job in flight.
    JobId b = loop.turn(T0, (engine, now) -> enqueue(engine, unique("work")).job().id());
    loop.turn(T0, (engine, now) -> {
      engine.delete(b, now);
      return null;
    });
    assertThat(b).isNotEqualTo(a);
    assertThat(live.describe(T0)).contains("claims {}\n");

    enqueue(live, unique("other"));
    live.rollBack(store, List.of(loop.endWithFailedCommit(T0)), T0);

    assertThat(live.describe(T0)).contains("claims {order-7=" + a + "}\n");
    assertThat(live.get(a, T0).status()).isEqualTo(JobStatus.IN_FLIGHT);
    assertThat(enqueue(live, unique("work", active)).duplicate()).isTrue();
  }
}

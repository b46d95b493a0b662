package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.store.StorageException;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A commit that fails on the commit thread while the engine thread sleeps with nothing due must
 * wake it: the rollback may not wait for the next request.
 */
class EngineLoopWakeOnFailureTest {
  private final ManualClock clock = new ManualClock();
  private final MemoryJobStore store = new MemoryJobStore();
  private EngineLoop loop;

  @AfterEach
  void stop() {
    if (loop != null) {
      loop.close();
    }
  }

  /** Where the engine runs: here on its own thread; the hosted variant moves it onto a host. */
  @RegisterExtension
  final LoopHosts hosts = hosts();

  LoopHosts hosts() {
    return LoopHosts.ownThread();
  }

  @Test
  void theRollbackHappensWithoutAnotherRequest() throws Exception {
    loop = new EngineLoop(new Engine(EngineConfig.defaults()), store, clock,
        new EngineLoop.CommitModes(true, true));
    loop.start();
    hosts.place(loop);
    loop.call((e, now) -> e.budgetAdmin().put("idle",
        new PolicySpec(1, "while_in_flight", null, null), now));
    Map<String, BudgetState> states = loop.call((e, now) -> e.budgetStates());
    store.holdCommits();
    store.failNextCommit(new StorageException("commit", new IOException("disk full")));

    CompletableFuture<?> pause = loop.submit((e, now) ->
        e.budgetAdmin().pause("idle", 60_000L, null, now));
    awaitEngineAsleep();
    assertThat(pause).isNotDone();
    store.releaseCommits();

    assertThatThrownBy(() -> pause.get(5, TimeUnit.SECONDS))
        .hasCauseInstanceOf(StorageException.class);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (states.get("idle").pausedUntilMs(clock.millis()) != null
        && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(states.get("idle").pausedUntilMs(clock.millis()))
        .as("the rollback republished the budget as stored, without a pause")
        .isNull();
  }

  /** Waits until the engine's thread (its own or its host's) is parked with nothing to do. */
  private static void awaitEngineAsleep() throws InterruptedException {
    Thread engine = Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("sluice-engine") || t.getName().equals("test-host"))
        .findFirst().orElseThrow();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (engine.getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(engine.getState()).isEqualTo(Thread.State.WAITING);
  }
}

package io.sluice.engine.replay;

import io.sluice.engine.Engine;
import io.sluice.engine.Turn;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.MemoryJobStore;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * Ends engine turns in {@code EngineLoop}'s order, on the test thread: due work, take the turn,
 * commit its mutations to the store (an empty turn writes nothing), {@code committed} with its
 * new jobs, {@code durable}, then dispatch. Commands are applied by the caller before.
 */
final class LoopTurns {
  private final Engine engine;
  private final MemoryJobStore store;
  /** Sees each turn once it is committed, before the dispatch that follows it. */
  private final Consumer<Turn> committedTurns;

  LoopTurns(Engine engine, MemoryJobStore store, Consumer<Turn> committedTurns) {
    this.engine = engine;
    this.store = store;
    this.committedTurns = committedTurns;
  }

  LoopTurns(Engine engine, MemoryJobStore store) {
    this(engine, store, turn -> { });
  }

  /** One turn: {@code commands} at {@code nowMs}, then the loop's steps; returns their answer. */
  <T> T turn(long nowMs, BiFunction<Engine, Long, T> commands) {
    T answer = commands.apply(engine, nowMs);
    end(nowMs);
    return answer;
  }

  /**
   * Ends the turn whose commands were applied at {@code nowMs} as the loop does when the store
   * fails its commit: due work, take the turn, a commit that throws; nothing is committed or
   * made durable. Returns the lost turn, for {@link Engine#rollBack}.
   */
  Turn endWithFailedCommit(long nowMs) {
    engine.runDue(nowMs);
    Turn turn = engine.takeTurn();
    RuntimeException diskFull = new IllegalStateException("disk full");
    store.failNextCommit(diskFull);
    try {
      store.commit(new CommitBatch(turn.mutations(), false));
    } catch (IllegalStateException expected) {
      return turn;
    }
    throw new AssertionError("the store committed a turn it was told to fail");
  }

  /** Ends the turn whose commands were applied at {@code nowMs}. */
  void end(long nowMs) {
    engine.runDue(nowMs);
    Turn turn = engine.takeTurn();
    if (!turn.mutations().isEmpty()) {
      store.commit(new CommitBatch(turn.mutations(), false));
    }
    committedTurns.accept(turn);
    engine.committed(turn.newJobs(), nowMs);
    engine.durable(turn);
    engine.dispatch(nowMs);
  }
}

package io.sluice.jmh;

import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Turn;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * An engine turn with nothing to apply, make due or dispatch, four take streams open and idle:
 * the fixed part of every turn, which at a low rate each command pays on its own (an enqueue, a
 * delivery's report, an acknowledgement). It ends as {@code EngineLoop.turn} ends a turn that
 * commits nothing: due work, the turn taken, a dispatch pass. Per turn.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class IdleTurnBenchmark {
  private static final int STREAMS = 4;
  private static final long NOW_MS = 1_764_000_000_000L;

  private Engine engine;

  @Setup(Level.Trial)
  public void open() {
    engine = new Engine(EngineConfig.defaults());
    for (int i = 0; i < STREAMS; i++) {
      engine.openSession(Set.of("bench"), 16, jobs -> {
        throw new IllegalStateException("an idle turn delivered " + jobs.size() + " jobs");
      });
    }
    // The streams' opening is a change of its own; measure the turns after it.
    idleTurn();
  }

  @Benchmark
  public boolean idleTurn() {
    engine.runDue(NOW_MS);
    Turn turn = engine.takeTurn();
    engine.dispatch(NOW_MS);
    return turn.isEmpty();
  }
}

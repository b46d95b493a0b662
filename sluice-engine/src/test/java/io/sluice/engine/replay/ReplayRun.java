package io.sluice.engine.replay;

import io.sluice.engine.BatchExpressions;
import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.ManualClock;
import io.sluice.engine.Turn;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.replay.Commands.Command;
import io.sluice.engine.replay.Commands.Step;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.store.Mutation;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeSet;

/**
 * Plays a script of {@link Commands} through a real {@link Engine} the way {@code EngineLoop}
 * runs it, turn by turn on a hand-moved clock (commands, due work, take the turn, commit it to a
 * {@link MemoryJobStore}, {@code committed}, {@code durable}, dispatch), and writes down
 * everything the outside world sees: each command with its answer or refusal, each stored
 * mutation and each delivery to a stream. Ids come from a seeded generator shared by the
 * requests and the engine (cron fires draw from it too), so the same script and seed must give
 * the same transcript. The commands themselves are sent by a {@link ReplayClient}.
 */
final class ReplayRun {
  static final long START_MS = ManualClock.DEFAULT_START_MS;
  /** The cron zone of groups that name none: not UTC, so the default is seen to be used. */
  static final ZoneId CRON_DEFAULT_ZONE = ZoneId.of("Europe/Berlin");
  /** Long enough for every drawn delay to pass and every time_based bucket to fill up again. */
  static final long SETTLE_MS = 3_600_000;
  private static final int MAX_TURNS_PER_INSTANT = 1_000;

  private final long seed;
  private final EngineConfig config;
  private final JobIdGenerator ids;
  private final Engine engine;
  private final MemoryJobStore store = new MemoryJobStore();
  private final List<String> transcript = new ArrayList<>();
  private final ReplayClient client;
  private final LoopTurns loop;
  private long now = START_MS;
  private final List<String> rollbackMismatches = new ArrayList<>();
  private int rollbacks;
  private int droppedOpenBatches;
  private int uncomparedRollbacks;
  private int uncomparedClaims;

  ReplayRun(long seed, int globalInFlightLimit) {
    this.seed = seed;
    this.config = config(globalInFlightLimit);
    this.ids = new JobIdGenerator(new SplittableRandom(seed));
    this.engine = newEngine(ids);
    this.client = new ReplayClient(engine, ids, transcript);
    this.loop = new LoopTurns(engine, store, client::committed);
  }

  /**
   * Small limits, so that scripts of a few dozen steps reach them: a scheduler batch of 3 (more
   * due jobs wait for the next turn), 3 budgets at most, a payload cache of 40 bytes (later
   * payloads are read from the store), quick retries, a 2 s reaper.
   */
  static EngineConfig config(int globalInFlightLimit) {
    return new EngineConfig(2, new BackoffPolicy(200, 2f, 1_000), 0, 20_000,
        globalInFlightLimit, 2_000, 3, 40, 3);
  }

  private Engine newEngine(JobIdGenerator jobIds) {
    BatchExpressions batches = new ConcatBatches();
    return new Engine(config, batches, jobIds, CRON_DEFAULT_ZONE);
  }

  static ReplayRun play(long seed, int globalInFlightLimit, List<Step> script) {
    ReplayRun run = new ReplayRun(seed, globalInFlightLimit);
    for (Step step : script) {
      run.step(step);
    }
    return run;
  }

  List<String> transcript() {
    return transcript;
  }

  ReplayClient.Coverage coverage() {
    return client.coverage();
  }

  MemoryJobStore store() {
    return store;
  }

  String liveState() {
    return engine.describe(now);
  }

  /** A fresh engine of the same configuration and seed, recovered from what was committed. */
  Recovered recover() {
    Engine recovered = newEngine(new JobIdGenerator(new SplittableRandom(seed)));
    recovered.recoverFrom(store, now);
    return new Recovered(recovered.describe(now), recovered.takeTurn().mutations());
  }

  /** A recovered engine's state, and what recovery wrote to tidy the store. */
  record Recovered(String state, List<Mutation> writes) {
    /**
     * Whether recovery handed a free unique key to a ready job that did not hold it: see
     * {@code ReadyJobWithoutItsClaimTest} for why the live engine may have such a job.
     */
    boolean gaveAClaimAway() {
      return writes.stream().anyMatch(write -> write instanceof Mutation.PutPointer pointer
          && pointer.kind() == Mutation.Pointer.UNIQUE_CLAIM);
    }
  }

  void step(Step step) {
    if (step instanceof Commands.Turn turn) {
      log("t+" + (now - START_MS) + " turn");
      for (Command command : turn.commands()) {
        client.send(command, now);
      }
      loop.end(now);
    } else if (step instanceof Commands.Advance advance) {
      advance(advance.ms());
    } else if (step instanceof Commands.FailedTurn failed) {
      failedTurn(failed.commands());
    }
  }

  /**
   * Where a failed turn was not undone: one line per part of the state that differs after the
   * rollback from before the turn (see {@link StateSections}).
   */
  List<String> rollbackMismatches() {
    return rollbackMismatches;
  }

  /** How many turns failed to commit and were rolled back. */
  int rollbacks() {
    return rollbacks;
  }

  /** How many rollbacks dropped an open batch whose job was not ready, as expected. */
  int droppedOpenBatches() {
    return droppedOpenBatches;
  }

  /** How many rollbacks were not compared on claims, for a job lacked its free key. */
  int uncomparedClaims() {
    return uncomparedClaims;
  }

  /** How many failed turns were not compared, for a ready job was due later. */
  int uncomparedRollbacks() {
    return uncomparedRollbacks;
  }

  /**
   * The loop first ends the turn before (so nothing is due at this instant), then applies the
   * commands; the commit fails, the engine rolls the turn back, and the loop dispatches on. The
   * state must then be the one before the turn, in every part a state rebuilt from the store
   * can reproduce ({@link #rebuildable}); turns that leave a ready job due later are not
   * compared ({@code RequeuedJobWithALaterReadyAtTest}).
   */
  private void failedTurn(List<Command> commands) {
    loop.end(now);
    Map<String, List<String>> expected = StateSections.of(engine.describe(now));
    boolean comparable = !StateSections.hasReadyJobDueAfter(expected, now);
    log("t+" + (now - START_MS) + " turn whose commit fails");
    for (Command command : commands) {
      client.send(command, now);
    }
    Turn lost = loop.endWithFailedCommit(now);
    for (Mutation mutation : lost.mutations()) {
      log("  lost " + Canonical.render(mutation));
    }
    engine.rollBack(store, List.of(lost), now);
    rollbacks++;
    if (comparable) {
      compare(rebuildable(expected), StateSections.of(engine.describe(now)));
    } else {
      uncomparedRollbacks++;
    }
    engine.dispatch(now);
  }

  /**
   * The parts of a live state that a state rebuilt from the store reproduces: all but open
   * batches of jobs that are not ready ({@code ScheduledOpenBatchTest}), the claims while a
   * ready or in-flight job lacks its free key ({@code ReadyJobWithoutItsClaimTest}) and the
   * wake-ups. Wake-ups are a lazy index: the live engine keeps one armed for a job that no
   * longer heads its queue until it fires, and lets a head that the drip blocks wait as a ready
   * candidate until a dispatch pass asks about it, where a rebuilt state arms every blocked
   * head. (Exact wake-ups after a rollback are checked in {@code FailedCommitRollbackTest}.)
   */
  private Map<String, List<String>> rebuildable(Map<String, List<String>> live) {
    List<String> openBatches = StateSections.openBatchesOfReadyJobs(live);
    if (!openBatches.equals(live.put("open-batches", openBatches))) {
      droppedOpenBatches++;
    }
    if (StateSections.hasJobWithoutItsFreeKey(live)) {
      uncomparedClaims++;
      live.remove("claims");
    }
    live.remove("wakes");
    return live;
  }

  private void compare(Map<String, List<String>> expected, Map<String, List<String>> actual) {
    actual.keySet().retainAll(expected.keySet());
    for (String part : new TreeSet<>(actual.keySet())) {
      if (!Objects.equals(expected.get(part), actual.get(part))) {
        rollbackMismatches.add("t+" + (now - START_MS) + " " + part + " was "
            + expected.get(part) + ", is " + actual.get(part));
      }
    }
  }

  /**
   * Brings the engine to a state that recovery can reproduce: every stream ends (its jobs are
   * requeued), then the clock moves {@link #SETTLE_MS} on and the loop turns until nothing is
   * due at that instant (the scheduler promotes at most its batch per turn).
   */
  void settle() {
    log("t+" + (now - START_MS) + " settle");
    client.closeEveryStream(now);
    loop.end(now);
    now += SETTLE_MS;
    turnsUntilNothingIsDue();
  }

  // ---- the loop ------------------------------------------------------------------------------

  /** The idle loop wakes at every engine deadline up to the target; then the clock gets there. */
  private void advance(long ms) {
    long target = now + ms;
    while (engine.nextDeadlineMs() <= target) {
      now = Math.max(now, engine.nextDeadlineMs());
      log("t+" + (now - START_MS) + " wake");
      turnsUntilNothingIsDue();
    }
    now = target;
  }

  private void turnsUntilNothingIsDue() {
    int turns = 0;
    do {
      if (++turns > MAX_TURNS_PER_INSTANT) {
        throw new AssertionError("work is still due after " + MAX_TURNS_PER_INSTANT
            + " turns at t+" + (now - START_MS) + "; next deadline " + engine.nextDeadlineMs());
      }
      loop.end(now);
    } while (engine.nextDeadlineMs() <= now);
  }

  private void log(String line) {
    transcript.add(line);
  }
}

package io.sluice.engine;

import io.sluice.engine.budget.TokenBucket;
import io.sluice.engine.dispatch.Dispatcher;
import io.sluice.engine.job.Job;
import io.sluice.engine.store.Mutation;
import java.util.List;
import java.util.Map;

/**
 * Where every room puts the durable effects of the current turn. Enqueue writes and other writes
 * are told apart because they may be committed in different modes (CLI.md §6).
 *
 * <p>Owned by the engine thread.
 */
final class Writes {
  private Turn turn = new Turn();

  /** A write made by an enqueue (new jobs, their payloads, claims and batch pointers). */
  void enqueueWrite(Mutation mutation) {
    turn.enqueueWrite(mutation);
  }

  /** Any other write. */
  void write(Mutation mutation) {
    turn.write(mutation);
  }

  /** True when something was written since the turn was last taken. */
  boolean hasWrites() {
    return !turn.mutations().isEmpty() || !turn.newJobs().isEmpty();
  }

  /** A new job that becomes dispatchable once this turn is durable. */
  void indexAfterCommit(Job job) {
    turn.indexAfterCommit(job);
  }

  /**
   * Ends the turn: returns its effects with what undoing it needs (the jobs that left flight in
   * it, the buckets its budget changes replaced) and the deliveries that wait for its commit, and
   * starts anew.
   */
  Turn take(List<Dispatcher.Departure> departures, Map<String, TokenBucket> bucketsBefore,
      List<Dispatcher.AwaitingCommit> awaitingCommit) {
    Turn finished = turn;
    finished.departures(departures);
    finished.bucketsBefore(bucketsBefore);
    finished.awaitingCommit(awaitingCommit);
    turn = new Turn();
    return finished;
  }
}

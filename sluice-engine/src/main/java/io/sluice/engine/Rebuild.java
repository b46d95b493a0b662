package io.sluice.engine;

import io.sluice.engine.budget.Budget;
import io.sluice.engine.budget.TokenBucket;
import io.sluice.engine.dispatch.Dispatcher;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Carries what the store does not hold from a discarded state to one rebuilt from the store after
 * a failed commit, so that the rebuilt state is the one before the failed turns: the open take
 * streams and the jobs they hold (dispatch is not written), including jobs those turns took out
 * of flight, the budgets' buckets (token state is not written: a rate bucket changed by those
 * turns gets its state from before the change; a concurrency bucket is settled from the jobs in
 * flight) and their dispatch and throttle counts. A durable budget (X4) keeps the token state
 * recovery read from the store: every charge delivered to a worker is in it, and the deliveries
 * that waited for the failed turns are dropped, their jobs ready again.
 *
 * <p>What cannot come back: a stream that ended in a failed turn (its jobs stay ready, as after
 * any requeue), payloads the cache held (read from the store again when needed), and a dispatch
 * made on a failed turn while it waited for its fsync (docs/decisions.md).
 */
final class Rebuild {
  private final Rooms discarded;
  private final Rooms rebuilt;
  private final List<Turn> undone;

  /** {@code undone} are the turns whose commit failed, oldest first. */
  Rebuild(Rooms discarded, Rooms rebuilt, List<Turn> undone) {
    this.discarded = discarded;
    this.rebuilt = rebuilt;
    this.undone = undone;
  }

  void carryOver(long nowMs) {
    carryBuckets();
    Set<JobId> undelivered = new HashSet<>();
    for (Turn turn : undone) {
      for (Dispatcher.AwaitingCommit delivery : turn.awaitingCommit()) {
        undelivered.addAll(delivery.session().abandonDelivery(delivery.pass()));
      }
    }
    Set<WorkerSession> open = new HashSet<>(discarded.dispatcher.sessions());
    for (WorkerSession session : discarded.dispatcher.sessions()) {
      rebuilt.dispatcher.adopt(session);
    }
    for (Map.Entry<Job, WorkerSession> held : discarded.dispatcher.holdings().entrySet()) {
      Job before = held.getKey();
      if (undelivered.contains(before.id())
          || !rehold(before, held.getValue(), before.dequeuedAtMs(), nowMs)) {
        rebuilt.dispatcher.forgetDeparture(
            new Dispatcher.Departure(before, held.getValue(), before.dequeuedAtMs()));
      }
    }
    for (Turn turn : undone) {
      for (Dispatcher.Departure departure : turn.departures()) {
        boolean reheld = open.contains(departure.session()) && rehold(departure.job(),
            departure.session(), departure.dequeuedAtMs(), nowMs);
        if (!reheld) {
          rebuilt.dispatcher.forgetDeparture(departure);
        }
      }
    }
    rebuilt.budgets.settleConcurrencyBuckets();
    // Recovery judged the heads against full buckets; they are judged again against the buckets
    // carried over and reheld, so a head that must wait for the drip is armed, not offered.
    rebuilt.budgets.reevaluateHeads(nowMs);
  }

  private void carryBuckets() {
    Map<String, TokenBucket> before = new HashMap<>();
    for (int i = undone.size() - 1; i >= 0; i--) {
      before.putAll(undone.get(i).bucketsBefore());
    }
    for (Budget budget : rebuilt.budgets.sortedByKey()) {
      Budget kept = discarded.budgets.get(budget.key());
      if (kept != null) {
        budget.carryCountersFrom(kept);
      }
      if (budget.partitioned() || kept != null && kept.partitioned()
          || budget.policy().storesTokenState()) {
        continue;
      }
      TokenBucket source = before.get(budget.key());
      if (source == null && kept != null) {
        source = kept.bucket();
      }
      // A bucket under another policy than the stored one is not the state before the turns.
      if (source != null && source.policy().equals(budget.policy())) {
        budget.bucket().takeStateOf(source);
      }
    }
  }

  /** Puts the rebuilt copy of a job back in its stream; false when the store no longer has it. */
  private boolean rehold(Job before, WorkerSession session, long dequeuedAtMs, long nowMs) {
    Job job = rebuilt.jobs.get(before.id());
    // A job rebuilt from the store is never pending; one already re-held is in flight.
    if (job == null || job.status().isTerminal() || job.status() == JobStatus.IN_FLIGHT) {
      return false;
    }
    rebuilt.streams.restore(job, session, dequeuedAtMs, nowMs);
    rebuilt.budgets.rehold(job, nowMs);
    return true;
  }
}

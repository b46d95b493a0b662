package io.sluice.engine;

import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.job.Binding;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.JobStore;
import io.sluice.engine.store.Mutation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads the engine's state from the store, in the one order that works: budgets,
 * then cron groups (whose templates bind budgets), then jobs, then unique claims and the jobs
 * that retake free claims, then open batches (which need their jobs and payloads). Jobs that were
 * in flight come back ready; buckets come back full (BUDGETS.md §10), except those of durable
 * budgets, which resume from their stored token state (X4).
 *
 * <p>Runs on the engine thread, or before the loop starts.
 */
final class Recovery {
  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  private final Rooms rooms;

  Recovery(Rooms rooms) {
    this.rooms = rooms;
  }

  RecoveryReport run(JobStore store, long nowMs) {
    long startedNanos = System.nanoTime();
    store.scanBudgets(budget -> budget(budget, nowMs));
    store.scanBucketStates((key, state) -> rooms.budgets.resumeTokenState(key, state, nowMs));
    store.scanCronGroups(rooms.crons::recover);
    long jobsStartedNanos = System.nanoTime();
    rooms.jobs.expect(store.estimatedJobCount());
    store.scanJobs(job -> job(job, nowMs));
    long jobsReadNanos = System.nanoTime();
    store.scanPointers(Mutation.Pointer.UNIQUE_CLAIM, this::claim);
    requeuedClaims();
    store.scanPointers(Mutation.Pointer.OPEN_BATCH,
        (key, job) -> openBatch(key, job, store.readPayload(job)));
    return new RecoveryReport(rooms.jobs.size(), (jobsStartedNanos - startedNanos) / 1_000_000,
        (jobsReadNanos - jobsStartedNanos) / 1_000_000);
  }

  /** A stored budget, bucket full. */
  void budget(BudgetView stored, long nowMs) {
    rooms.budgets.restore(stored, nowMs);
  }

  /**
   * A stored job; one that was in flight comes back ready. Its payload is not kept in memory,
   * whether or not the record holds it: start-up memory stays what it was before records held
   * payloads, and a dispatch reads it from the store.
   */
  void job(JobSnapshot stored, long nowMs) {
    Job job = Job.fromSnapshot(stored, rooms.jobs.canonical(stored.type()),
        rooms.jobs.canonical(stored.queue()));
    rooms.jobs.add(job);
    job.payloadInRecord(stored.payload() != null);
    if (job.status().isTerminal()) {
      rooms.placement.retain(job);
      return;
    }

    if (!job.budgets().isEmpty()) {
      dropUnknownBudgets(job);
    }
    rooms.budgets.track(job);
    rooms.placement.place(job, nowMs);
  }

  private void dropUnknownBudgets(Job job) {
    List<Binding> known =
        job.budgets().stream().filter(b -> rooms.budgets.get(b.key()) != null).toList();
    if (known.size() != job.budgets().size()) {
      // Deleting a budget is refused while unfinished jobs use it, so only a damaged store gets
      // here; a binding the server cannot enforce must not hold the job forever.
      LOG.warn("job {} is bound to budgets that do not exist; dropping those bindings", job.id());
      job.budgets(known);
    }
  }

  /** A stored unique-key claim; after every job. */
  void claim(String key, JobId holder) {
    rooms.claims.recover(key, rooms.jobs.get(holder));
  }

  /** Jobs that were in flight at a crash retake their free unique keys, oldest first. */
  void requeuedClaims() {
    List<Job> unique = new ArrayList<>();
    for (Job job : rooms.jobs.all()) {
      if (job.unique() != null) {
        unique.add(job);
      }
    }
    unique.sort(Comparator.comparing(Job::id));
    rooms.claims.retakeFreeOnRecovery(unique);
  }

  /** A stored open-batch pointer and its job's payload; after the jobs. */
  void openBatch(String key, JobId jobId, byte[] payload) {
    Job job = payload == null ? null : rooms.jobs.get(jobId);
    if (rooms.openBatches.recover(key, job)) {
      rooms.payloads.pin(job, payload);
    }
  }
}

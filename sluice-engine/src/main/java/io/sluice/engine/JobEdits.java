package io.sluice.engine;

import io.sluice.engine.budget.BindingChange;
import io.sluice.engine.budget.BulkRebindResult;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobPatch;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.query.JobFilter;
import io.sluice.engine.store.IndexEntry;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Operator changes to existing jobs (API.md §8.11–§8.14, BUDGETS.md §8.7): merge patches,
 * deletions and budget rebinding, of one job by id or of every job a filter selects.
 *
 * <p>Runs on the engine thread.
 */
final class JobEdits {
  private final JobTable jobs;
  private final Placement placement;
  private final JobRemoval removal;
  private final JobRebinder rebinder;
  private final Writes writes;

  JobEdits(JobTable jobs, Placement placement, JobRemoval removal, JobRebinder rebinder,
      Writes writes) {
    this.jobs = jobs;
    this.placement = placement;
    this.removal = removal;
    this.rebinder = rebinder;
    this.writes = writes;
  }

  /** Applies a merge patch to one job; answers it without payload. */
  JobSnapshot patch(JobId id, JobPatch patch, long nowMs) {
    Job job = jobs.visible(id, nowMs);
    if (job.status().isTerminal()) {
      throw new SluiceException.Unprocessable("cannot patch job " + job.id() + " in "
          + job.status().wireName() + " status");
    }
    applyPatch(job, patch, nowMs);
    return job.snapshot(false);
  }

  /** Applies a merge patch to every non-terminal job the filter (and {@code ids}) select. */
  int patchWhere(JobFilter filter, Set<JobId> ids, JobPatch patch, long nowMs) {
    int patched = 0;
    for (Job job : jobs.selected(filter, ids, nowMs)) {
      if (!job.status().isTerminal()) {
        applyPatch(job, patch, nowMs);
        patched++;
      }
    }
    return patched;
  }

  /**
   * Changes a non-terminal job; a queue, priority or ready_at change takes a queued job out of
   * its place and puts it back, so it is re-positioned (in its budgets' queues too).
   */
  private void applyPatch(Job job, JobPatch patch, long nowMs) {
    // A job whose enqueue is not durable yet has no place; its commit places it as patched.
    boolean queued = !job.pending()
        && (job.status() == JobStatus.READY || job.status() == JobStatus.SCHEDULED);
    boolean moves = patch.queue() != null || patch.priority() != null || patch.setReadyAt();
    IndexEntry stored = JobWrites.storedEntry(job);
    if (queued && moves) {
      placement.unplace(job, nowMs);
    }
    if (patch.queue() != null) {
      jobs.moveToQueue(job, patch.queue());
    }
    if (patch.priority() != null) {
      job.priority(patch.priority());
    }
    if (patch.setReadyAt()) {
      if (patch.readyAtMs() != null) {
        job.readyAtMs(patch.readyAtMs());
      } else if (job.status() == JobStatus.SCHEDULED) {
        job.readyAtMs(nowMs);
      }
    }
    if (patch.setRetryLimit()) {
      job.retryLimit(patch.retryLimit());
    }
    if (patch.setBackoff()) {
      job.backoff(patch.backoff());
    }
    job.retention(patch.mergeRetention(job.retention()));
    if (queued && moves) {
      placement.place(job, nowMs);
    }
    writes.write(JobWrites.put(job, job.snapshot(false), stored));
  }

  /**
   * Deletes a job in any status (API.md §8.14): an in-flight job's stream slot and budget tokens
   * are released, and its worker's later ack finds nothing.
   */
  void delete(JobId id, long nowMs) {
    Job job = jobs.visible(id, nowMs);
    placement.detach(job, nowMs);
    removal.forget(job);
  }

  /** Deletes every job the filter (and {@code ids}) select, in any status. */
  int deleteWhere(JobFilter filter, Set<JobId> ids, long nowMs) {
    List<Job> chosen = jobs.selected(filter, ids, nowMs);
    for (Job job : chosen) {
      placement.detach(job, nowMs);
      removal.forget(job);
    }
    return chosen.size();
  }

  /** Deletes every job (the second step of a reset). */
  void deleteAll(long nowMs) {
    for (Job job : List.copyOf(jobs.all())) {
      placement.detach(job, nowMs);
      removal.forget(job);
    }
  }

  /** Changes one queued job's bindings; answers the job without payload. */
  JobSnapshot changeBindings(JobId id, BindingChange change, long nowMs) {
    Job job = jobs.visible(id, nowMs);
    rebinder.changeOne(job, change, nowMs);
    return job.snapshot(false);
  }

  /** Changes the bindings of every queued job the filter (narrowed to {@code ids}) selects. */
  BulkRebindResult changeBindingsWhere(JobFilter filter, Set<JobId> ids, BindingChange change,
      long nowMs) {
    Collection<Job> candidates = ids == null ? jobs.all()
        : ids.stream().map(jobs::get).filter(Objects::nonNull).toList();
    return rebinder.changeAll(candidates, filter, change, nowMs);
  }
}

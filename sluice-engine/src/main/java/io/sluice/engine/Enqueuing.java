package io.sluice.engine;

import io.sluice.engine.budget.BindingPlan;
import io.sluice.engine.budget.Budget;
import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.job.Binding;
import io.sluice.engine.job.Enqueued;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.Mutation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Creates jobs (API.md §4, §8.1–§8.2): budget bindings, unique claims and batch folding are
 * settled for the whole request first, then each new job is written. A new job is in no index
 * until the turn that wrote it is durable ({@link #committed}).
 *
 * <p>Runs on the engine thread.
 */
final class Enqueuing {
  private final JobTable jobs;
  private final Placement placement;
  private final BudgetBook budgets;
  private final UniqueClaims claims;
  private final OpenBatches openBatches;
  private final BatchExpressions batchExpressions;
  private final PayloadCache payloads;
  private final Writes writes;
  private final EngineObserver observer;

  Enqueuing(JobTable jobs, Placement placement, BudgetBook budgets, UniqueClaims claims,
      OpenBatches openBatches, BatchExpressions batchExpressions, PayloadCache payloads,
      Writes writes, EngineObserver observer) {
    this.jobs = jobs;
    this.placement = placement;
    this.budgets = budgets;
    this.claims = claims;
    this.openBatches = openBatches;
    this.batchExpressions = batchExpressions;
    this.payloads = payloads;
    this.writes = writes;
    this.observer = observer;
  }

  /**
   * Stores new jobs, all or none, in request order. Every job's budget bindings are resolved
   * first, duplicates included (BUDGETS.md §4.2), and a failure names the job by index when
   * {@code bulk}. A unique job whose key is held by a job its scope covers (one created earlier in
   * the same request included) is answered by that job instead (API.md §4.5).
   */
  List<Enqueued> enqueueAll(List<NewJob> requests, boolean bulk, long nowMs) {
    BindingPlan plan = budgets.newPlan();
    List<List<Binding>> bindings = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      try {
        bindings.add(plan.resolve(requests.get(i).budgets()));
      } catch (SluiceException.Unprocessable e) {
        throw bulk ? new SluiceException.Unprocessable("jobs[" + i + "]: " + e.getMessage()) : e;
      }
    }
    BatchPlan batching = BatchPlan.of(requests, openBatches, batchExpressions, bulk, nowMs);
    for (Budget created : plan.apply(nowMs)) {
      writes.enqueueWrite(new Mutation.PutBudget(created.view()));
    }
    Job[] createdHere = new Job[requests.size()];
    List<Enqueued> answers = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      NewJob request = requests.get(i);
      BatchPlan.Target foldedInto = batching.foldTarget(i);
      if (foldedInto != null) {
        answers.add(new Enqueued(target(foldedInto, createdHere).snapshot(false), false, true));
        continue;
      }
      // A job created earlier in this request already holds the claim, and is covered by every
      // scope (it is scheduled or ready), so the claims alone decide.
      Job holder = request.unique() == null ? null : claims.duplicated(request.unique(), nowMs);
      if (holder != null) {
        answers.add(new Enqueued(holder.snapshot(false), true, false));
        continue;
      }
      Job job = create(request, bindings.get(i), nowMs, answers);
      createdHere[i] = job;
      if (batching.opens(i)) {
        payloads.pin(job, request.payload());
        openBatches.open(job);
      }
    }
    for (Map.Entry<BatchPlan.Target, byte[]> folded : batching.foldedPayloads().entrySet()) {
      Job job = target(folded.getKey(), createdHere);
      payloads.pin(job, folded.getValue());
      writes.enqueueWrite(new Mutation.PutPayload(job.id(), folded.getValue()));
    }
    return answers;
  }

  private static Job target(BatchPlan.Target target, Job[] createdHere) {
    return target instanceof BatchPlan.OpenJob open
        ? open.job()
        : createdHere[((BatchPlan.CreatedHere) target).index()];
  }

  /**
   * Creates the job and adds its answer: the record written and the answer share one snapshot,
   * taken once the job is complete (a payload pinned afterwards is in neither).
   */
  private Job create(NewJob request, List<Binding> bindings, long nowMs,
      List<Enqueued> answers) {
    long readyAtMs = request.readyAtMs() == null ? nowMs : request.readyAtMs();
    JobStatus status = readyAtMs > nowMs ? JobStatus.SCHEDULED : JobStatus.READY;
    Job job = new Job(request.id(), jobs.canonical(request.type()),
        jobs.canonical(request.queue()), request.priority(), status, readyAtMs);
    job.retryLimit(request.retryLimit());
    job.backoff(request.backoff());
    job.retention(request.retention());
    job.budgets(bindings);
    job.unique(request.unique());
    job.batch(request.batch());
    job.pending(true);
    jobs.add(job);
    if (job.unique() != null) {
      claims.take(job);
    }
    budgets.track(job);
    Mutation.PutJob record = JobWrites.create(job, request.payload());
    writes.enqueueWrite(record);
    answers.add(new Enqueued(record.job(), false, false));
    if (!job.payloadInRecord()) {
      writes.enqueueWrite(new Mutation.PutPayload(job.id(), request.payload()));
    }
    payloads.offer(job, request.payload());
    writes.indexAfterCommit(job);
    return job;
  }

  /** The turn that created these jobs is durable: those still queued take their places. */
  void committed(List<Job> newJobs, long nowMs) {
    for (Job job : newJobs) {
      job.pending(false);
      observer.enqueued(job.queue());
      // The job object is still the one held (not deleted, nor rolled back since); asked of
      // the job, because a lookup in a table of millions costs a cache miss per job.
      if (job.held() && job.status() != JobStatus.IN_FLIGHT
          && !job.status().isTerminal()) {
        placement.place(job, nowMs);
      }
    }
  }
}

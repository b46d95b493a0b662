package io.sluice.engine;

import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.dispatch.Dispatcher;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import java.time.ZoneId;
import java.util.Map;

/**
 * The engine's live state and the rooms that change it, wired together once. A failed commit
 * replaces the whole set with one rebuilt from the store (see {@link Rebuild}).
 *
 * <p>Owned by the engine thread.
 */
final class Rooms {
  final Writes writes = new Writes();
  final JobTable jobs;
  final BudgetBook budgets;
  final Dispatcher dispatcher;
  final Placement placement;
  final PayloadCache payloads;
  final UniqueClaims claims;
  final OpenBatches openBatches;
  final JobRemoval removal;
  final Enqueuing enqueuing;
  final Completions completions;
  final JobEdits edits;
  final TakeStreams streams;
  final CronAdmin crons;
  final BudgetAdmin budgetAdmin;
  final DueWork due;
  final WaitReasons waits;

  Rooms(EngineConfig config, BatchExpressions batchExpressions, JobIdGenerator jobIds,
      ZoneId cronDefaultZone, Map<JobId, Long> inFlightView,
      Map<String, BudgetState> budgetStates, Map<String, QueueCounts> queueCounts,
      EngineObserver observer) {
    jobs = new JobTable(queueCounts);
    budgets = new BudgetBook(config.maxBudgets(), budgetStates);
    dispatcher = new Dispatcher(budgets, config.globalInFlightLimit(), inFlightView);
    placement = new Placement(jobs, dispatcher, budgets);
    payloads = new PayloadCache(config.payloadCacheBytes());
    claims = new UniqueClaims(writes::enqueueWrite, writes::write);
    openBatches = new OpenBatches(writes::enqueueWrite, writes::write);
    removal = new JobRemoval(jobs, payloads, claims, openBatches, writes);
    enqueuing = new Enqueuing(jobs, placement, budgets, claims, openBatches, batchExpressions,
        payloads, writes, observer);

    edits = new JobEdits(jobs, placement, removal, new JobRebinder(budgets, placement, writes),
        writes);
    streams = new TakeStreams(config, jobs, dispatcher, placement, claims, openBatches, payloads,
        writes, observer);
    crons = new CronAdmin(writes::write, budgets, cronDefaultZone);
    budgetAdmin = new BudgetAdmin(budgets, crons, writes::write);
    completions = new Completions(config, jobs, placement, budgets, claims, payloads, removal,
        writes, observer, new ThrottledFailures(budgetAdmin, placement, claims, writes, observer));
    CronFiring firing = new CronFiring(crons, new CronJobs(writes, enqueuing), jobIds);
    due = new DueWork(crons, firing, placement, budgets,
        new Reaper(placement, removal, config.reaperIntervalMs()), jobs,
        config.schedulerBatchSize());
    waits = new WaitReasons(jobs, budgets);
  }
}

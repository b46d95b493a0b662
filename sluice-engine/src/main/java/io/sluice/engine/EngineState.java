package io.sluice.engine;

import io.sluice.engine.budget.Budget;
import io.sluice.engine.budget.Pool;
import io.sluice.engine.budget.TokenBucket;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.Job;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The engine's live state as canonical text: two engines in the same state describe it alike,
 * whatever order they reached it in. Covers what behaviour depends on (jobs, their places, the
 * ready candidates, budgets with their waiting queues, buckets and wake-ups, unique claims, open
 * batches, cron groups, streams and what they hold) and leaves out caches (payloads in memory,
 * stale ready entries, the heads a budget last blocked).
 */
final class EngineState {
  private EngineState() {}

  static String describe(Rooms rooms, long nowMs) {
    StringBuilder out = new StringBuilder();
    Map<Job, WorkerSession> holdings = rooms.dispatcher.holdings();
    List<Job> jobs = new ArrayList<>(rooms.jobs.all());
    jobs.sort(Comparator.comparing(Job::id));
    out.append("jobs ").append(jobs.size()).append('\n');
    for (Job job : jobs) {
      WorkerSession holder = holdings.get(job);
      out.append("  ").append(job.snapshot(false))
          .append(job.pending() ? " pending" : "")
          .append(holder == null ? "" : " held-by=" + holder.id()).append('\n');
    }
    out.append("queues ").append(rooms.jobs.queueNames()).append('\n');
    out.append("ready ").append(ids(readyCandidates(rooms, nowMs))).append('\n');
    out.append("scheduled ").append(ids(rooms.placement.scheduledInOrder())).append('\n');
    out.append("retained ").append(ids(rooms.placement.retainedInOrder())).append('\n');
    Map<String, Long> wakes = new TreeMap<>();
    rooms.budgets.armedWakes().forEach((job, atMs) -> wakes.put(job.id().toString(), atMs));
    out.append("wakes ").append(wakes).append('\n');
    for (Budget budget : rooms.budgets.sortedByKey()) {
      out.append("budget ").append(budget.view());
      if (!budget.partitioned()) {
        TokenBucket bucket = budget.bucket().copy();
        bucket.refill(nowMs);
        out.append(" tokens=").append(bucket.tokens())
            .append(" accrued=").append(bucket.accrued())
            .append(" debt=").append(bucket.debt());
      }
      out.append(" in-flight-cost=").append(budget.inFlightCost())
          .append(" unfinished=").append(budget.unfinishedCount())
          .append(" max-cost=").append(budget.maxUnfinishedCost()).append('\n');
      // A partition left with no job is forgotten in its own time; only the busy ones are state.
      List<Pool> pools = new ArrayList<>(budget.pools());
      pools.sort(Comparator.comparing(pool -> pool.partition() == null ? "" : pool.partition()));
      for (Pool pool : pools) {
        String name = pool.partition() == null ? "" : " partition " + pool.partition();
        new TreeMap<>(pool.waitingQueues()).forEach((queue, waiting) -> out.append("  waiting")
            .append(name).append(' ').append(queue).append(' ').append(ids(waiting))
            .append('\n'));
      }
    }
    out.append("claims ").append(byKey(rooms.claims.holders())).append('\n');
    out.append("open-batches ").append(byKey(rooms.openBatches.open())).append('\n');
    rooms.crons.records().forEach((name, record) -> out.append("cron ").append(name).append(' ')
        .append(HexFormat.of().formatHex(record)).append('\n'));
    for (WorkerSession session : rooms.dispatcher.sessions()) {
      List<Job> held = new ArrayList<>();
      holdings.forEach((job, holder) -> {
        if (holder == session) {
          held.add(job);
        }
      });
      held.sort(Comparator.comparing(Job::id));
      out.append("stream ").append(session.id()).append(' ').append(ids(held)).append('\n');
    }
    return out.toString();
  }

  /** Unbound ready jobs and the budget heads that can pay now, in dispatch order. */
  private static List<Job> readyCandidates(Rooms rooms, long nowMs) {
    Set<Job> entries = new LinkedHashSet<>(rooms.dispatcher.readyInOrder());
    entries.addAll(rooms.budgets.pendingOffers());
    List<Job> live = new ArrayList<>();
    for (Job job : entries) {
      if (job.budgets().isEmpty() || rooms.budgets.canPayNow(job, nowMs)) {
        live.add(job);
      }
    }
    live.sort(Job.DISPATCH_ORDER);
    return live;
  }

  private static List<String> ids(List<Job> jobs) {
    return jobs.stream().map(job -> job.id().toString()).toList();
  }

  private static Map<String, String> byKey(Map<String, Job> jobsByKey) {
    Map<String, String> sorted = new TreeMap<>(Names.BYTE_ORDER);
    jobsByKey.forEach((key, job) -> sorted.put(key, job.id().toString()));
    return sorted;
  }
}

package io.sluice.engine.budget;

import io.sluice.engine.SluiceException;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.RankedJobs;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One budget: its stored policy, its live bucket, its waiting queues of parked jobs (one per job
 * queue, each in {@link Job#DISPATCH_ORDER}) and the costs of its unfinished jobs.
 *
 * <p>Owned by the engine thread. A job is in a waiting queue iff it is ready, bound to this
 * budget and not a candidate that was dispatched.
 */
public final class Budget {
  private final String key;
  private BudgetPolicy policy;
  private final long createdAtMs;
  private long updatedAtMs;
  private final TokenBucket bucket;
  private final Map<String, RankedJobs> parkedByQueue = new HashMap<>();
  /** Cost → number of unfinished jobs bound with that cost (BUDGETS.md §5.6). */
  private final TreeMap<Long, Integer> unfinishedCosts = new TreeMap<>();
  private int unfinishedCount;
  private int parkedCount;
  private long parkedCost;
  /** Jobs bound here that are in flight, and their summed cost, whatever the strategy. */
  private int inFlightJobs;
  private long inFlightCost;
  /** Dispatches charged to this budget since the server started (X1). */
  private long dispatchedTotal;
  /** Times since the server started that this budget was found unable to pay for a head (X7). */
  private long throttledTotal;
  /**
   * Heads (of this or another budget) last found unable to pay because of this budget; a release,
   * refill or policy change here looks at them again. Entries may be stale: they are checked.
   */
  private final Set<Job> blockedHeads = new LinkedHashSet<>();

  Budget(String key, BudgetPolicy policy, long createdAtMs, long updatedAtMs, long nowMs) {
    this.key = key;
    this.policy = policy;
    this.createdAtMs = createdAtMs;
    this.updatedAtMs = updatedAtMs;
    this.bucket = new TokenBucket(policy, nowMs);
  }

  public String key() {
    return key;
  }

  public BudgetPolicy policy() {
    return policy;
  }

  public long createdAtMs() {
    return createdAtMs;
  }

  public long updatedAtMs() {
    return updatedAtMs;
  }

  public TokenBucket bucket() {
    return bucket;
  }

  public BudgetView view() {
    long pausedUntil = bucket.pausedUntilMs();
    return new BudgetView(key, policy, createdAtMs, updatedAtMs,
        pausedUntil == TokenBucket.NOT_PAUSED ? null : pausedUntil);
  }

  void replace(BudgetPolicy newPolicy, long nowMs) {
    bucket.adopt(newPolicy, nowMs, inFlightCost);
    policy = newPolicy;
    updatedAtMs = nowMs;
  }

  void touch(long nowMs) {
    updatedAtMs = nowMs;
  }

  // ---- waiting queues ------------------------------------------------------------------------

  void park(Job job, long cost) {
    RankedJobs waiting =
        parkedByQueue.computeIfAbsent(job.queue(), q -> new RankedJobs(Job.DISPATCH_ORDER));
    if (waiting.add(job, cost)) {
      parkedCount++;
      parkedCost += cost;
    }
  }

  void unpark(Job job, long cost) {
    RankedJobs waiting = parkedByQueue.get(job.queue());
    if (waiting != null && waiting.remove(job)) {
      parkedCount--;
      parkedCost -= cost;
      if (waiting.isEmpty()) {
        parkedByQueue.remove(job.queue());
      }
    }
  }

  /** The first parked job of the given queue, or null. */
  Job head(String queue) {
    RankedJobs waiting = parkedByQueue.get(queue);
    return waiting == null ? null : waiting.first();
  }

  /** Every waiting queue in dispatch order, by job queue (copies). */
  public Map<String, List<Job>> waitingQueues() {
    Map<String, List<Job>> all = new HashMap<>();
    parkedByQueue.forEach((queue, waiting) -> all.put(queue, waiting.toList()));
    return all;
  }

  Iterable<String> queuesWithParkedJobs() {
    return parkedByQueue.keySet();
  }

  /**
   * True when no parked job of this budget in the given queues (all when null) comes before
   * {@code job}: the job is this budget's head for a worker taking those queues.
   */
  boolean isHeadFor(Job job, Set<String> queues) {
    if (queues == null) {
      for (RankedJobs waiting : parkedByQueue.values()) {
        if (Job.DISPATCH_ORDER.compare(waiting.first(), job) < 0) {
          return false;
        }
      }
      return true;
    }
    for (String queue : queues) {
      RankedJobs waiting = parkedByQueue.get(queue);
      if (waiting != null && Job.DISPATCH_ORDER.compare(waiting.first(), job) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The parked jobs of this budget, in every queue, that come before {@code job} in dispatch
   * order: those this budget dispatches first when workers take every queue.
   */
  public RankedJobs.Ahead ahead(Job job) {
    RankedJobs.Ahead ahead = RankedJobs.Ahead.NONE;
    for (RankedJobs waiting : parkedByQueue.values()) {
      ahead = ahead.plus(waiting.before(job));
    }
    return ahead;
  }

  void blocks(Job head) {
    blockedHeads.add(head);
  }

  /** The job left its waiting queues: it no longer waits for this budget. */
  void unblocks(Job job) {
    blockedHeads.remove(job);
  }

  /** Keeps the counts of a budget this one replaces after a rebuild (X1: since start). */
  public void carryCountersFrom(Budget earlier) {
    dispatchedTotal = earlier.dispatchedTotal;
    throttledTotal = earlier.throttledTotal;
  }

  /** Hands over (and forgets) the heads this budget blocked. */
  List<Job> takeBlockedHeads() {
    if (blockedHeads.isEmpty()) {
      return List.of();
    }
    List<Job> heads = List.copyOf(blockedHeads);
    blockedHeads.clear();
    return heads;
  }

  public int parkedCount() {
    return parkedCount;
  }

  public long parkedCost() {
    return parkedCost;
  }

  void dispatched(long cost) {
    inFlightJobs++;
    inFlightCost += cost;
    dispatchedTotal++;
  }

  /** A job put back in flight after a failed commit: counted in flight, not dispatched again. */
  void reheld(long cost) {
    inFlightJobs++;
    inFlightCost += cost;
  }

  void leftFlight(long cost) {
    inFlightJobs = Math.max(0, inFlightJobs - 1);
    inFlightCost = Math.max(0, inFlightCost - cost);
  }

  public int inFlightJobs() {
    return inFlightJobs;
  }

  public long dispatchedTotal() {
    return dispatchedTotal;
  }

  void throttled() {
    throttledTotal++;
  }

  public long throttledTotal() {
    return throttledTotal;
  }

  public long inFlightCost() {
    return inFlightCost;
  }

  // ---- unfinished jobs -----------------------------------------------------------------------

  void addUnfinished(long cost) {
    unfinishedCosts.merge(cost, 1, Integer::sum);
    unfinishedCount++;
  }

  void removeUnfinished(long cost) {
    Integer count = unfinishedCosts.get(cost);
    if (count == null) {
      return;
    }
    if (count == 1) {
      unfinishedCosts.remove(cost);
    } else {
      unfinishedCosts.put(cost, count - 1);
    }
    unfinishedCount--;
  }

  public int unfinishedCount() {
    return unfinishedCount;
  }

  /** The largest cost among unfinished jobs, or 0 when there are none. */
  public long maxUnfinishedCost() {
    return unfinishedCosts.isEmpty() ? 0 : unfinishedCosts.lastKey();
  }

  /** Refuses a policy whose capacity is below the cost of something still committed (§8.9). */
  public void checkShrink(BudgetPolicy policy) {
    long capacity = policy.capacity();
    long maxCost = maxUnfinishedCost();
    if (maxCost > capacity) {
      int n = unfinishedCount();
      throw new SluiceException.Unprocessable("budget '" + key + "' cannot allocate "
          + capacity + ": " + n + " unfinished " + (n == 1 ? "job" : "jobs") + " draw up to "
          + maxCost + " from it. Raise the allocation, delete them, or wait for them to drain.");
    }
  }

  /** Refuses deleting a budget that unfinished jobs still draw on (§8.6). */
  public void checkUnreferenced() {
    int n = unfinishedCount();
    if (n > 0) {
      throw new SluiceException.Conflict("budget '" + key + "' is referenced by " + n
          + " unfinished " + (n == 1 ? "job" : "jobs")
          + ". Delete them or wait for them to finish before deleting it.");
    }
  }
}

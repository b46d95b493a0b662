package io.sluice.engine.budget;

import io.sluice.engine.SluiceException;
import io.sluice.engine.job.Job;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One budget: its stored policy, its pools of tokens and the costs of its unfinished jobs. A plain
 * budget has one pool; a partitioned one (X3) has a pool per partition value in use, made full on
 * first use and forgotten once idle, all under this one policy. The counts here sum over the
 * pools, for the state published for the budget as a whole (X1).
 *
 * <p>Owned by the engine thread. A job is in a pool's waiting queue iff it is ready, bound to the
 * pool and not a candidate that was dispatched.
 */
public final class Budget {
  private final String key;
  private BudgetPolicy policy;
  private final long createdAtMs;
  private long updatedAtMs;
  /** The only pool of a plain budget; null for a partitioned one. */
  private final Pool pool;
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

  Budget(String key, BudgetPolicy policy, long createdAtMs, long updatedAtMs, long nowMs) {
    this.key = key;
    this.policy = policy;
    this.createdAtMs = createdAtMs;
    this.updatedAtMs = updatedAtMs;
    this.pool = new Pool(this, null, new TokenBucket(policy, nowMs));
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

  /** The pool jobs bound with {@code partition} (null for a plain budget) draw on. */
  public Pool pool(String partition) {
    return pool;
  }

  /** The bucket of a plain budget's only pool. */
  public TokenBucket bucket() {
    return pool.bucket();
  }

  public BudgetView view() {
    long pausedUntil = pool.bucket().pausedUntilMs();
    return new BudgetView(key, policy, createdAtMs, updatedAtMs,
        pausedUntil == TokenBucket.NOT_PAUSED ? null : pausedUntil);
  }

  void replace(BudgetPolicy newPolicy, long nowMs) {
    pool.bucket().adopt(newPolicy, nowMs, pool.inFlightCost());
    policy = newPolicy;
    updatedAtMs = nowMs;
  }

  void touch(long nowMs) {
    updatedAtMs = nowMs;
  }

  /** Every pool of this budget. */
  Iterable<Pool> pools() {
    return List.of(pool);
  }

  /** Every waiting queue of the plain budget's pool in dispatch order, by job queue (copies). */
  public Map<String, List<Job>> waitingQueues() {
    return pool.waitingQueues();
  }

  // ---- counts over the pools -----------------------------------------------------------------

  void parkedChanged(int jobs, long cost) {
    parkedCount += jobs;
    parkedCost += cost;
  }

  void flightChanged(int jobs, long cost) {
    inFlightJobs += jobs;
    inFlightCost += cost;
  }

  void countDispatch() {
    dispatchedTotal++;
  }

  /** Keeps the counts of a budget this one replaces after a rebuild (X1: since start). */
  public void carryCountersFrom(Budget earlier) {
    dispatchedTotal = earlier.dispatchedTotal;
    throttledTotal = earlier.throttledTotal;
  }

  public int parkedCount() {
    return parkedCount;
  }

  public long parkedCost() {
    return parkedCost;
  }

  public int inFlightJobs() {
    return inFlightJobs;
  }

  public long inFlightCost() {
    return inFlightCost;
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

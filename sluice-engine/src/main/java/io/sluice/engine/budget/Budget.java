package io.sluice.engine.budget;

import io.sluice.engine.SluiceException;
import io.sluice.engine.job.Job;
import io.sluice.engine.Names;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.function.Predicate;

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
  /**
   * A partitioned budget's pools in use, by partition value; null when plain. A hash map: every
   * park, dispatch and release looks a pool up, while only an operator's listing needs them in
   * order (a sorted map cost the enqueue of a job on its own partition a quarter more, measured
   * with a million partitions).
   */
  private final HashMap<String, Pool> partitions;
  /**
   * The end of a pause of the whole partitioned budget (X6), which pools made during it share;
   * {@link TokenBucket#NOT_PAUSED} when none.
   */
  private long partitionsPausedUntilMs = TokenBucket.NOT_PAUSED;
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

  Budget(String key, BudgetPolicy policy, boolean partitioned, long createdAtMs,
      long updatedAtMs, long nowMs) {
    this.key = key;
    this.policy = policy;
    this.createdAtMs = createdAtMs;
    this.updatedAtMs = updatedAtMs;
    this.pool = partitioned ? null : new Pool(this, null, new TokenBucket(policy, nowMs));
    this.partitions = partitioned ? new HashMap<>() : null;
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

  public boolean partitioned() {
    return partitions != null;
  }

  /**
   * The pool jobs bound with {@code partition} (null for a plain budget) draw on; a partition
   * not in use gets a full pool under the budget's policy, paused if the whole budget is (X3).
   */
  Pool pool(String partition, long nowMs) {
    if (partitions == null) {
      return pool;
    }
    Pool found = partitions.get(partition);
    if (found == null) {
      found = freshPool(partition, nowMs);
      partitions.put(partition, found);
    }
    return found;
  }

  /**
   * The pool a partition not in use would get: full, under the budget's policy, paused while the
   * whole budget is. Not held: {@link #pool} holds it when a job needs it.
   */
  Pool freshPool(String partition, long nowMs) {
    Pool fresh = new Pool(this, partition, new TokenBucket(policy, nowMs));
    holdToBudgetPause(fresh, nowMs);
    return fresh;
  }

  /**
   * Ends one partition's own pause; a pause of the whole budget still holds it, as it holds a
   * partition made now, so a resumed partition and a re-made one behave alike.
   */
  void resumePartition(Pool partitionPool, long nowMs) {
    partitionPool.bucket().resume(nowMs);
    holdToBudgetPause(partitionPool, nowMs);
  }

  private void holdToBudgetPause(Pool partitionPool, long nowMs) {
    if (partitionsPausedUntilMs != TokenBucket.NOT_PAUSED) {
      partitionPool.bucket().pause(partitionsPausedUntilMs, nowMs);
    }
  }

  /** The pool of {@code partition} if it is in use (always, for a plain budget), else null. */
  public Pool poolIfHeld(String partition) {
    return partitions == null ? pool : partitions.get(partition);
  }

  /** Forgets a partition's pool; the next use makes a fresh one. */
  void forget(Pool partitionPool) {
    partitions.remove(partitionPool.partition(), partitionPool);
  }

  /** Partitions held in memory (X1 {@code partitions}); 0 for a plain budget. */
  public int heldPartitions() {
    return partitions == null ? 0 : partitions.size();
  }

  /**
   * Up to {@code limit} held pools after {@code after} (exclusive; null: from the first), in the
   * byte order of their values or its reverse, for an operator's listing.
   */
  public List<Pool> partitionsAfter(String after, boolean descending, int limit) {
    Comparator<String> values = descending ? Names.BYTE_ORDER.reversed() : Names.BYTE_ORDER;
    return firstPartitions(Comparator.comparing(Pool::partition, values), limit,
        each -> after == null || values.compare(each.partition(), after) > 0);
  }

  /**
   * Up to {@code limit} held pools with the most waiting jobs, most first (ties by partition
   * value), for a dashboard's "busiest".
   */
  public List<Pool> busiestPartitions(int limit) {
    return firstPartitions(Comparator.comparingInt(Pool::parkedCount).reversed()
        .thenComparing(Pool::partition, Names.BYTE_ORDER), limit, each -> each.parkedCount() > 0);
  }

  /**
   * The first {@code limit} held pools that {@code keep} accepts, in {@code order}: one pass over
   * the partitions keeping the best few in a bounded heap, never a sort of them all.
   */
  private List<Pool> firstPartitions(Comparator<Pool> order, int limit, Predicate<Pool> keep) {
    if (partitions == null) {
      return List.of();
    }
    PriorityQueue<Pool> best = new PriorityQueue<>(Math.min(limit, 1_024) + 1, order.reversed());
    for (Pool each : partitions.values()) {
      if (keep.test(each)) {
        best.add(each);
        if (best.size() > limit) {
          best.poll();
        }
      }
    }
    List<Pool> first = new ArrayList<>(best);
    first.sort(order);
    return first;
  }

  /** The bucket of a plain budget's only pool. */
  public TokenBucket bucket() {
    return pool.bucket();
  }

  public BudgetView view() {
    long pausedUntil = partitions != null ? partitionsPausedUntilMs : pool.bucket().pausedUntilMs();
    return new BudgetView(key, policy, partitions != null, createdAtMs, updatedAtMs,
        pausedUntil == TokenBucket.NOT_PAUSED ? null : pausedUntil);
  }

  void replace(BudgetPolicy newPolicy, long nowMs) {
    for (Pool each : pools()) {
      each.bucket().adopt(newPolicy, nowMs, each.inFlightCost());
    }
    policy = newPolicy;
    updatedAtMs = nowMs;
  }

  /**
   * Pauses every pool until {@code untilMs} or longer (X6); for a partitioned budget pools made
   * during the pause share it.
   */
  void pause(long untilMs, long nowMs) {
    if (partitions != null) {
      partitionsPausedUntilMs = Math.max(partitionsPausedUntilMs, untilMs);
    }
    for (Pool each : pools()) {
      each.bucket().pause(untilMs, nowMs);
    }
  }

  /** Ends the pause of every pool at once. */
  void resume(long nowMs) {
    partitionsPausedUntilMs = TokenBucket.NOT_PAUSED;
    for (Pool each : pools()) {
      each.bucket().resume(nowMs);
    }
  }

  void touch(long nowMs) {
    updatedAtMs = nowMs;
  }

  /** Every pool of this budget: its only one, or every partition held. */
  public Collection<Pool> pools() {
    return partitions == null ? List.of(pool) : partitions.values();
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

package io.sluice.engine.budget;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.RankedJobs;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One pool of tokens under a budget's policy: the whole of a plain budget, or one partition of a
 * partitioned one (X3). It holds the live bucket, the waiting queues of parked jobs (one per job
 * queue, each in {@link Job#DISPATCH_ORDER}: strict FIFO holds per pool), what is in flight, and
 * the heads it blocks.
 *
 * <p>Owned by the engine thread. A partitioned budget may hold a million pools, so the waiting
 * queues and blocked heads are made on first use and dropped when they empty.
 */
public final class Pool {
  private final Budget budget;
  /** The partition value, or null for a plain budget's only pool. */
  private final String partition;
  private final TokenBucket bucket;
  /** Null while no job waits here. */
  private WaitingQueues waiting;
  private int parkedCount;
  private long parkedCost;
  private int inFlightJobs;
  private long inFlightCost;
  /** Dispatches charged to this pool since it was made. */
  private long dispatchedTotal;
  /** When {@link QuietPools} looks at this pool next; {@link Long#MAX_VALUE} while not watched. */
  long quietCheckAtMs = Long.MAX_VALUE;
  /**
   * Heads (of this or another pool) last found unable to pay because of this pool; a release,
   * refill or policy change here looks at them again. Entries may be stale: they are checked.
   */
  private Set<Job> blockedHeads;

  Pool(Budget budget, String partition, TokenBucket bucket) {
    this.budget = budget;
    this.partition = partition;
    this.bucket = bucket;
  }

  public Budget budget() {
    return budget;
  }

  public String partition() {
    return partition;
  }

  public TokenBucket bucket() {
    return bucket;
  }

  /**
   * The key its token state is stored under (X4): the budget key, then for a partition a NUL and
   * the partition value; names never hold NUL, so keys of different budgets never meet.
   */
  public String storeKey() {
    return partition == null ? budget.key() : budget.key() + '\0' + partition;
  }

  /** The budget key in a {@link #storeKey}. */
  public static String budgetKeyOf(String storeKey) {
    int nul = storeKey.indexOf('\0');
    return nul < 0 ? storeKey : storeKey.substring(0, nul);
  }

  /** The partition in a {@link #storeKey}, or null for a plain budget's. */
  public static String partitionOf(String storeKey) {
    int nul = storeKey.indexOf('\0');
    return nul < 0 ? null : storeKey.substring(nul + 1);
  }

  // ---- waiting queues ------------------------------------------------------------------------

  void park(Job job, long cost) {
    if (waiting == null) {
      waiting = new WaitingQueues();
    }
    if (waiting.add(job, cost)) {
      parkedCount++;
      parkedCost += cost;
      budget.parkedChanged(1, cost);
    }
  }

  void unpark(Job job, long cost) {
    if (waiting != null && waiting.remove(job)) {
      parkedCount--;
      parkedCost -= cost;
      budget.parkedChanged(-1, -cost);
      if (waiting.isEmpty()) {
        waiting = null;
      }
    }
  }

  /** The first parked job of the given queue, or null. */
  Job head(String queue) {
    RankedJobs queued = waiting == null ? null : waiting.get(queue);
    return queued == null ? null : queued.first();
  }

  /** Every waiting queue in dispatch order, by job queue (copies). */
  public Map<String, List<Job>> waitingQueues() {
    Map<String, List<Job>> all = new HashMap<>();
    if (waiting != null) {
      waiting.forEach((queue, queued) -> all.put(queue, queued.toList()));
    }
    return all;
  }

  List<String> queuesWithParkedJobs() {
    return waiting == null ? List.of() : waiting.queues();
  }

  /**
   * True when no parked job of this pool in the given queues (all when null) comes before
   * {@code job}: the job is this pool's head for a worker taking those queues.
   */
  boolean isHeadFor(Job job, Set<String> queues) {
    if (waiting == null) {
      return true;
    }
    if (queues == null) {
      return !waiting.anyBefore(job);
    }
    for (String queue : queues) {
      RankedJobs queued = waiting.get(queue);
      if (queued != null && Job.DISPATCH_ORDER.compare(queued.first(), job) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The parked jobs of this pool, in every queue, that come before {@code job} in dispatch
   * order: those this pool dispatches first when workers take every queue.
   */
  public RankedJobs.Ahead ahead(Job job) {
    return waiting == null ? RankedJobs.Ahead.NONE : waiting.before(job);
  }

  void blocks(Job head) {
    if (blockedHeads == null) {
      blockedHeads = new LinkedHashSet<>();
    }
    blockedHeads.add(head);
  }

  /** The job left its waiting queues: it no longer waits for this pool. */
  void unblocks(Job job) {
    if (blockedHeads != null && blockedHeads.remove(job) && blockedHeads.isEmpty()) {
      blockedHeads = null;
    }
  }

  /** Hands over (and forgets) the heads this pool blocked. */
  List<Job> takeBlockedHeads() {
    if (blockedHeads == null) {
      return List.of();
    }
    List<Job> heads = List.copyOf(blockedHeads);
    blockedHeads = null;
    return heads;
  }

  public int parkedCount() {
    return parkedCount;
  }

  public long parkedCost() {
    return parkedCost;
  }

  // ---- flight --------------------------------------------------------------------------------

  void dispatched(long cost) {
    inFlightJobs++;
    inFlightCost += cost;
    dispatchedTotal++;
    budget.flightChanged(1, cost);
    budget.countDispatch();
  }

  public long dispatchedTotal() {
    return dispatchedTotal;
  }

  /** A job put back in flight after a failed commit: counted in flight, not dispatched again. */
  void reheld(long cost) {
    inFlightJobs++;
    inFlightCost += cost;
    budget.flightChanged(1, cost);
  }

  void leftFlight(long cost) {
    int jobs = Math.min(1, inFlightJobs);
    long released = Math.min(cost, inFlightCost);
    inFlightJobs -= jobs;
    inFlightCost -= released;
    budget.flightChanged(-jobs, -released);
  }

  public int inFlightJobs() {
    return inFlightJobs;
  }

  public long inFlightCost() {
    return inFlightCost;
  }

  /** No job waits on this pool or runs charged to it. */
  boolean empty() {
    return parkedCount == 0 && inFlightJobs == 0;
  }

  /**
   * True when the pool holds nothing a fresh one would not (X3): it is empty, its bucket is as
   * full as a new one and not paused. Such a partition may be forgotten.
   */
  boolean idleAt(long nowMs) {
    return empty() && bucket.debtAt(nowMs) == 0 && !bucket.pausedAt(nowMs)
        && bucket.tokensAt(nowMs) >= bucket.policy().capacity();
  }

  /**
   * The earliest instant from which an empty pool left alone is idle: once a pause ends and the
   * drip has filled it (while_in_flight pools are full once empty).
   */
  long idleFrom(long nowMs) {
    long from = bucket.pausedAt(nowMs) ? bucket.pausedUntilMs() : nowMs;
    Long full = bucket.accrualAt(bucket.policy().capacity(), from);
    return full != null ? full : from;
  }
}

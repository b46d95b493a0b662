package io.sluice.engine.budget;

/**
 * One budget's policy and live state as the engine thread last published it (X1): counters kept
 * up to date as jobs park, dispatch and finish, and a private copy of the bucket from which the
 * token figures are projected to any instant without changing anything. Immutable once
 * published, so any thread may read it without waiting for the engine.
 *
 * <p>A partitioned budget (X3) is described as a whole: no bucket (its token figures and debt are
 * null), counts summed over its partitions, and how many partitions are held. One partition's
 * state ({@link #ofPartition}) has its pool's bucket and counts.
 */
public final class BudgetState {
  private final BudgetView view;
  /** Null for a partitioned budget as a whole. */
  private final TokenBucket bucket;
  private final int inFlightJobs;
  private final long inFlightCost;
  private final int waitingJobs;
  private final long waitingCost;
  private final long dispatched;
  private final long throttled;
  private final int partitions;
  /** The partition this state is of; null for a budget as a whole. */
  private final String partition;

  BudgetState(Budget budget) {
    this.view = budget.view();
    this.bucket = budget.partitioned() ? null : budget.bucket().copy();
    this.inFlightJobs = budget.inFlightJobs();
    this.inFlightCost = budget.inFlightCost();
    this.waitingJobs = budget.parkedCount();
    this.waitingCost = budget.parkedCost();
    this.dispatched = budget.dispatchedTotal();
    this.throttled = budget.throttledTotal();
    this.partitions = budget.heldPartitions();
    this.partition = null;
  }

  private BudgetState(BudgetView view, Pool pool) {
    this.view = view;
    this.bucket = pool.bucket().copy();
    this.inFlightJobs = pool.inFlightJobs();
    this.inFlightCost = pool.inFlightCost();
    this.waitingJobs = pool.parkedCount();
    this.waitingCost = pool.parkedCost();
    this.dispatched = pool.dispatchedTotal();
    this.throttled = 0;
    this.partitions = 0;
    this.partition = pool.partition();
  }

  /** The partition this state is of (X3); null for a budget as a whole. */
  public String partition() {
    return partition;
  }

  /** The state of one partition's pool (X3), read on the engine thread. */
  public static BudgetState ofPartition(Pool pool) {
    return new BudgetState(pool.budget().view(), pool);
  }

  /**
   * A partition not held: the fresh, full pool it would get on first use, paused if the whole
   * budget is.
   */
  public static BudgetState ofFreshPartition(Budget budget, String partition, long nowMs) {
    return new BudgetState(budget.view(), budget.freshPool(partition, nowMs));
  }

  /** Partitions held in memory (X3); 0 for a plain budget. */
  public int partitions() {
    return partitions;
  }

  public BudgetView view() {
    return view;
  }

  /**
   * Whole tokens available at {@code nowMs} (BUDGETS.md §3 refill, not applied); null for a
   * partitioned budget as a whole.
   */
  public Long tokensAt(long nowMs) {
    return bucket == null ? null : bucket.tokensAt(nowMs);
  }

  public long capacity() {
    return view.policy().capacity();
  }

  /**
   * Tokens owed at {@code nowMs}, after what the drip has paid of them (X5); null for a
   * partitioned budget as a whole.
   */
  public Long debtAt(long nowMs) {
    return bucket == null ? null : bucket.debtAt(nowMs);
  }

  public int inFlightJobs() {
    return inFlightJobs;
  }

  public long inFlightCost() {
    return inFlightCost;
  }

  /** Jobs bound here that are ready and not in flight (parked), and their summed cost. */
  public int waitingJobs() {
    return waitingJobs;
  }

  public long waitingCost() {
    return waitingCost;
  }

  /** Dispatches charged to this budget since the server started. */
  public long dispatched() {
    return dispatched;
  }

  /** When the budget's pause ends, while it lasts at {@code nowMs}; else null (X6). */
  public Long pausedUntilMs(long nowMs) {
    if (bucket == null) {
      Long until = view.pausedUntilMs();
      return until != null && nowMs < until ? until : null;
    }
    return bucket.pausedAt(nowMs) ? bucket.pausedUntilMs() : null;
  }

  /**
   * Times since the server started that this budget was found unable to pay for a head of its
   * waiting queues (or for a job heading another budget it is bound to): each look that found
   * the job held back by this budget counts once.
   */
  public long throttled() {
    return throttled;
  }

  /** time_based and not full: when the next whole token arrives; else null. */
  public Long nextTokenAtMs(long nowMs) {
    return bucket == null ? null : arrivalOf(bucket.tokensAt(nowMs) + 1, nowMs);
  }

  /** time_based and not full: when the pool is full if nothing more is spent; else null. */
  public Long fullAtMs(long nowMs) {
    return arrivalOf(capacity(), nowMs);
  }

  private Long arrivalOf(long tokens, long nowMs) {
    if (bucket == null || view.policy().type() != StrategyType.TIME_BASED
        || bucket.tokensAt(nowMs) >= capacity()) {
      return null;
    }
    Availability at = bucket.nextAvailable(tokens, nowMs);
    return at.kind() == Availability.Kind.AT ? at.atMs() : null;
  }
}

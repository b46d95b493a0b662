package io.sluice.engine.budget;

/**
 * One budget's policy and live state as the engine thread last published it (X1): counters kept
 * up to date as jobs park, dispatch and finish, and a private copy of the bucket from which the
 * token figures are projected to any instant without changing anything. Immutable once
 * published, so any thread may read it without waiting for the engine.
 */
public final class BudgetState {
  private final BudgetView view;
  private final TokenBucket bucket;
  private final int inFlightJobs;
  private final long inFlightCost;
  private final int waitingJobs;
  private final long waitingCost;
  private final long dispatched;
  private final long throttled;

  BudgetState(Budget budget) {
    this.view = budget.view();
    this.bucket = budget.bucket().copy();
    this.inFlightJobs = budget.inFlightJobs();
    this.inFlightCost = budget.inFlightCost();
    this.waitingJobs = budget.parkedCount();
    this.waitingCost = budget.parkedCost();
    this.dispatched = budget.dispatchedTotal();
    this.throttled = budget.throttledTotal();
  }

  public BudgetView view() {
    return view;
  }

  /** Whole tokens available at {@code nowMs} (BUDGETS.md §3 refill, not applied). */
  public long tokensAt(long nowMs) {
    return bucket.tokensAt(nowMs);
  }

  public long capacity() {
    return view.policy().capacity();
  }

  /** Tokens owed at {@code nowMs}, after what the drip has paid of them (X5). */
  public long debtAt(long nowMs) {
    return bucket.debtAt(nowMs);
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
    return arrivalOf(tokensAt(nowMs) + 1, nowMs);
  }

  /** time_based and not full: when the pool is full if nothing more is spent; else null. */
  public Long fullAtMs(long nowMs) {
    return arrivalOf(capacity(), nowMs);
  }

  private Long arrivalOf(long tokens, long nowMs) {
    if (view.policy().type() != StrategyType.TIME_BASED || tokensAt(nowMs) >= capacity()) {
      return null;
    }
    Availability at = bucket.nextAvailable(tokens, nowMs);
    return at.kind() == Availability.Kind.AT ? at.atMs() : null;
  }
}

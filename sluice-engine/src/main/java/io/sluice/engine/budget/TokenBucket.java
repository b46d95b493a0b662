package io.sluice.engine.budget;

import java.math.BigInteger;

/**
 * The live token state of one budget, exactly as BUDGETS.md §3 and §7 specify it, in exact
 * integer arithmetic.
 *
 * <p>Owned by the engine thread. Invariants: {@code 0 <= tokens <= capacity}; {@code 0 <= accrued
 * < durationMs} (time_based); {@code debt >= 0}, and {@code tokens == 0} while {@code debt > 0}.
 * A time_based bucket owes debt after a settlement took more than it held (X5): the drip pays it
 * off before any token appears. Not persisted (a bucket starts full) unless its budget is
 * durable (X4, {@link #state}); the end of a pause is stored with the budget.
 */
public final class TokenBucket {
  private BudgetPolicy policy;
  /** T: whole tokens available. */
  private long tokens;
  /** K: token·milliseconds accrued toward the next token (time_based only). */
  private long accrued;
  /**
   * D: slots still owed after a concurrency budget was narrowed below what is running, or tokens
   * owed after a rate budget was settled above what it held (X5).
   */
  private long debt;
  /** L: time of the last refill. */
  private long lastRefillMs;
  /** Until when the bucket is paused (X6): nothing accrues and nothing is paid before it. */
  private long pausedUntilMs = NOT_PAUSED;

  /** {@link #pausedUntilMs} of a bucket that is not paused. */
  public static final long NOT_PAUSED = Long.MIN_VALUE;

  public TokenBucket(BudgetPolicy policy, long nowMs) {
    this.policy = policy;
    this.tokens = policy.capacity();
    this.lastRefillMs = nowMs;
  }

  /** A bucket in the same state, for a state that may have to be restored. */
  public TokenBucket copy() {
    TokenBucket copy = new TokenBucket(policy, lastRefillMs);
    copy.takeStateOf(this);
    return copy;
  }

  /** Takes over another bucket's whole state, policy included. */
  public void takeStateOf(TokenBucket other) {
    policy = other.policy;
    tokens = other.tokens;
    accrued = other.accrued;
    debt = other.debt;
    lastRefillMs = other.lastRefillMs;
    pausedUntilMs = other.pausedUntilMs;
  }

  /** T, K, D and L as they are now, for a durable budget's stored record (X4). */
  public BucketState state() {
    return new BucketState(tokens, accrued, debt, lastRefillMs);
  }

  /**
   * Resumes from a stored state (X4), keeping the policy and the pause end: the next refill
   * accrues for all the time since the stored {@code L}, as if the process had never stopped.
   */
  public void resumeFrom(BucketState stored) {
    tokens = stored.tokens();
    accrued = stored.accrued();
    debt = stored.debt();
    lastRefillMs = stored.lastRefillMs();
  }

  /**
   * Pauses the bucket until {@code untilMs} (X6), or longer if it already is: a pause never
   * shortens another. The drip settles up to now first and accrues nothing while paused, so the
   * bucket resumes with the tokens it had.
   */
  public void pause(long untilMs, long nowMs) {
    refill(nowMs);
    pausedUntilMs = Math.max(pausedUntilMs, untilMs);
  }

  /** Ends a pause at once; the drip resumes from now. */
  public void resume(long nowMs) {
    refill(nowMs);
    pausedUntilMs = NOT_PAUSED;
  }

  /** True while a pause lasts at {@code nowMs}. */
  public boolean pausedAt(long nowMs) {
    return nowMs < pausedUntilMs;
  }

  /** The end of the latest pause (it may have passed), or {@link #NOT_PAUSED}. */
  public long pausedUntilMs() {
    return pausedUntilMs;
  }

  /**
   * Sets a while_in_flight bucket to what it holds while jobs of {@code inFlightCost} are in
   * flight: the slots they leave free, or none and the slots they take beyond the capacity as
   * debt. Acquiring, releasing and §7 adoption all keep {@code tokens - debt == capacity -
   * inFlightCost}, so this is the bucket's state whatever the order of its changes.
   */
  public void holdFor(long inFlightCost) {
    tokens = Math.max(0, capacity() - inFlightCost);
    debt = Math.max(0, inFlightCost - capacity());
  }

  public long tokens() {
    return tokens;
  }

  public long debt() {
    return debt;
  }

  /** Debt a refill at {@code nowMs} would leave, without changing anything. */
  public long debtAt(long nowMs) {
    return policy.type() == StrategyType.TIME_BASED ? project(nowMs)[2] : debt;
  }

  public long accrued() {
    return accrued;
  }

  public BudgetPolicy policy() {
    return policy;
  }

  /** C: the most tokens the pool holds (not a field: a partitioned budget holds a million, X3). */
  private long capacity() {
    return policy.capacity();
  }

  /** Whole tokens a refill at {@code nowMs} would leave, without changing anything. */
  public long tokensAt(long nowMs) {
    return policy.type() == StrategyType.TIME_BASED ? project(nowMs)[0] : tokens;
  }

  /** Settles the drip up to {@code nowMs} (time_based only; a clock going back never drains). */
  public void refill(long nowMs) {
    if (policy.type() == StrategyType.TIME_BASED) {
      long[] projected = project(nowMs);
      tokens = projected[0];
      accrued = projected[1];
      debt = projected[2];
    }
    lastRefillMs = Math.max(lastRefillMs, nowMs);
  }

  /**
   * {tokens, accrued, debt} as a refill at {@code nowMs} would leave them, without changing state:
   * the tokens earned pay the debt first.
   */
  private long[] project(long nowMs) {
    if (tokens >= capacity()) {
      return new long[] {capacity(), 0, 0};
    }
    // A pause stops the drip: only the time since the later of the last refill and the end of
    // the pause counts.
    long elapsed = Math.max(0, nowMs - Math.max(lastRefillMs, pausedUntilMs));
    long duration = policy.durationMs();
    long allocation = policy.allocation();
    long missing = saturatingAdd(capacity() - tokens, debt);
    long earned;
    long remainder;
    long product = elapsed * allocation;
    if (Math.multiplyHigh(elapsed, allocation) == 0 && product >= 0
        && product <= Long.MAX_VALUE - accrued) {
      long banked = accrued + product;
      earned = banked / duration;
      remainder = banked % duration;
    } else {
      BigInteger banked = BigInteger.valueOf(elapsed).multiply(BigInteger.valueOf(allocation))
          .add(BigInteger.valueOf(accrued));
      BigInteger[] division = banked.divideAndRemainder(BigInteger.valueOf(duration));
      earned = division[0].min(BigInteger.valueOf(Long.MAX_VALUE)).longValue();
      remainder = division[1].longValue();
    }
    if (earned >= missing) {
      return new long[] {capacity(), 0, 0};
    }
    if (earned < debt) {
      return new long[] {tokens, remainder, debt - earned};
    }
    return new long[] {tokens + earned - debt, remainder, 0};
  }

  /**
   * Settles a rate bucket for a job that really cost {@code difference} more than it paid at
   * dispatch (X5): what the pool cannot cover becomes debt; a negative difference is refunded,
   * paying debt first and never above the capacity.
   */
  public void settle(long difference, long nowMs) {
    refill(nowMs);
    if (difference >= 0) {
      long paid = Math.min(tokens, difference);
      tokens -= paid;
      debt = saturatingAdd(debt, difference - paid);
    } else {
      release(-difference);
    }
  }

  private static long saturatingAdd(long a, long b) {
    long sum = a + b;
    return sum < a ? Long.MAX_VALUE : sum;
  }

  /** Takes {@code cost} tokens if they are all there; otherwise changes nothing. */
  public boolean tryAcquire(long cost, long nowMs) {
    refill(nowMs);
    if (tokens < cost || pausedAt(nowMs)) {
      return false;
    }
    tokens -= cost;
    return true;
  }

  /** Returns a finished job's tokens, paying off debt first (while_in_flight; also refunds). */
  public void release(long cost) {
    long paid = Math.min(cost, debt);
    debt -= paid;
    tokens = Math.min(capacity(), tokens + cost - paid);
  }

  /** When {@code cost} can next be paid, assuming nothing else happens meanwhile. */
  public Availability nextAvailable(long cost, long nowMs) {
    if (cost > capacity()) {
      return Availability.NEVER;
    }
    if (pausedAt(nowMs)) {
      Availability afterPause = nextAvailable(cost, pausedUntilMs);
      return afterPause.kind() == Availability.Kind.NOW
          ? Availability.at(pausedUntilMs)
          : afterPause;
    }
    long[] projected = policy.type() == StrategyType.TIME_BASED
        ? project(nowMs)
        : new long[] {tokens, 0, debt};
    if (projected[0] >= cost) {
      return Availability.NOW;
    }
    if (policy.type() == StrategyType.WHILE_IN_FLIGHT) {
      return Availability.ON_RELEASE;
    }
    return Availability.at(earnedAt(cost, projected, nowMs));
  }

  /**
   * When a drip at {@code nowMs} holding {@code projected} = {T', K', D'} will have made
   * {@code total} tokens (§3 {@code At(t)}, the debt paid first): {@code now + max(1, ceil(((total
   * − T' + D') × duration − K') / allocation))}, saturated.
   */
  private long earnedAt(long total, long[] projected, long nowMs) {
    BigInteger needed = BigInteger.valueOf(total - projected[0])
        .add(BigInteger.valueOf(projected[2]))
        .multiply(BigInteger.valueOf(policy.durationMs()))
        .subtract(BigInteger.valueOf(projected[1]));
    BigInteger[] division = needed.divideAndRemainder(BigInteger.valueOf(policy.allocation()));
    BigInteger wait = division[1].signum() > 0 ? division[0].add(BigInteger.ONE) : division[0];
    long waitMs = Math.max(1, wait.min(BigInteger.valueOf(Long.MAX_VALUE / 2)).longValue());
    long at = nowMs + waitMs;
    return at < nowMs ? Long.MAX_VALUE : at;
  }

  /**
   * time_based: the instant by which {@code total} tokens will have been available in all (those
   * there now included), if nothing else spends; the cap is ignored, since the jobs this counts
   * spend as they go. Null when they are all there now, or for while_in_flight.
   */
  public Long accrualAt(long total, long nowMs) {
    if (policy.type() != StrategyType.TIME_BASED) {
      return null;
    }
    if (pausedAt(nowMs)) {
      Long afterPause = accrualAt(total, pausedUntilMs);
      return afterPause == null ? pausedUntilMs : afterPause;
    }
    long[] projected = project(nowMs);
    if (projected[0] >= total) {
      return null;
    }
    return earnedAt(total, projected, nowMs);
  }

  /**
   * Takes a new policy without a reset (BUDGETS.md §7 {@code Adopt}). {@code inFlightCost} is
   * what jobs bound to this budget hold in flight right now: a switch from {@code time_based} to
   * {@code while_in_flight} counts them as holding slots (see docs/decisions.md), since §7's
   * literal rule would leave the new pool short of those slots for good.
   */
  public void adopt(BudgetPolicy newPolicy, long nowMs, long inFlightCost) {
    refill(nowMs);
    boolean wasConcurrency = policy.type() == StrategyType.WHILE_IN_FLIGHT;
    boolean isConcurrency = newPolicy.type() == StrategyType.WHILE_IN_FLIGHT;
    long oldPeriod = wasConcurrency ? -1 : policy.durationMs();
    long oldCapacity = capacity();
    policy = newPolicy;
    if (wasConcurrency && isConcurrency) {
      long spare = tokens - debt + (capacity() - oldCapacity);
      if (spare >= 0) {
        tokens = Math.min(spare, capacity());
        debt = 0;
      } else {
        tokens = 0;
        debt = -spare;
      }
    } else if (isConcurrency) {
      tokens = Math.max(0, capacity() - inFlightCost);
      debt = Math.max(0, inFlightCost - capacity());
    } else if (wasConcurrency) {
      debt = 0;
    }
    // A rate budget keeps what settlements left it owing across a change of rate or capacity
    // (docs/decisions.md): the new drip pays it.
    tokens = Math.min(tokens, capacity());
    long newPeriod = newPolicy.type() == StrategyType.WHILE_IN_FLIGHT ? -1 : newPolicy.durationMs();
    if (oldPeriod != newPeriod) {
      accrued = 0;
    }
  }
}

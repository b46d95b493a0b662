package io.sluice.engine.property;

import java.math.BigInteger;

/**
 * The token state of one budget exactly as BUDGETS.md §3 and §7 describe it, written from the
 * spec text for the test model: capacity {@code C}, whole tokens {@code T}, accrued progress
 * {@code K}, debt {@code D} and last refill {@code L}. A rate budget owes debt after a settlement
 * (EXTENSIONS.md X5) took more than it held: "refills pay [it] first".
 *
 * <p>One reading had to be chosen: the spec's {@code Refill} is "time_based only", which leaves
 * open whether {@code L} moves while a budget is {@code while_in_flight}. This model settles
 * {@code L = max(L, now)} on every refill of either strategy (so a switch to time_based starts
 * dripping at the switch). That is the reading with the fewer tokens, so the "dispatch is
 * immediate" check can never demand a dispatch that the other reading would forbid.
 *
 * <p>A pause (EXTENSIONS.md X6) is kept as its end {@code P}: before it nothing is paid and
 * nothing accrues, so the drip counts only the time after {@code max(L, P)}; it never shortens,
 * and a resume ends it.
 */
final class SpecBucket {
  private ModelPolicy policy;
  private long capacity;
  private long tokens;
  private long accrued;
  private long debt;
  private long lastRefillMs;
  private long pausedUntilMs = Long.MIN_VALUE;

  SpecBucket(ModelPolicy policy, long nowMs) {
    this.policy = policy;
    this.capacity = policy.capacity();
    this.tokens = capacity;
    this.lastRefillMs = nowMs;
  }

  ModelPolicy policy() {
    return policy;
  }

  long capacity() {
    return capacity;
  }

  long tokens() {
    return tokens;
  }

  long debt() {
    return debt;
  }

  /** {T', K', D'} that a refill at {@code nowMs} would leave, without changing anything. */
  private long[] project(long nowMs) {
    if (!policy.timeBased()) {
      return new long[] {tokens, accrued, debt};
    }
    if (tokens >= capacity) {
      return new long[] {capacity, 0, 0};
    }
    long elapsed = Math.max(0, nowMs - Math.max(lastRefillMs, pausedUntilMs));
    BigInteger banked = BigInteger.valueOf(accrued)
        .add(BigInteger.valueOf(elapsed).multiply(BigInteger.valueOf(policy.allocation())));
    BigInteger[] qr = banked.divideAndRemainder(BigInteger.valueOf(policy.durationMs()));
    BigInteger missing = BigInteger.valueOf(capacity - tokens + debt);
    if (qr[0].compareTo(missing) >= 0) {
      return new long[] {capacity, 0, 0};
    }
    long earned = qr[0].longValueExact();
    long paid = Math.min(earned, debt);
    return new long[] {tokens + earned - paid, qr[1].longValueExact(), debt - paid};
  }

  /** Debt left at {@code nowMs} (time_based: after the drip paid what it could). */
  long debtAt(long nowMs) {
    return project(nowMs)[2];
  }

  /** Tokens available at {@code nowMs} (time_based: after the drip). */
  long available(long nowMs) {
    return project(nowMs)[0];
  }

  private void refill(long nowMs) {
    long[] p = project(nowMs);
    tokens = p[0];
    accrued = p[1];
    debt = p[2];
    lastRefillMs = Math.max(lastRefillMs, nowMs);
  }

  /** The end of the latest pause, or {@link Long#MIN_VALUE}. */
  long pausedUntilMs() {
    return pausedUntilMs;
  }

  /**
   * After a restart (X4): the pause is what the store kept, {@code untilMs} (a partition's own
   * pause is not stored), set as is: the stored T, K, D and L are those of before.
   */
  void restartPause(long untilMs) {
    pausedUntilMs = untilMs;
  }

  boolean paused(long nowMs) {
    return nowMs < pausedUntilMs;
  }

  /** Pauses until {@code untilMs}, or longer if already paused; what accrued so far is kept. */
  void pause(long untilMs, long nowMs) {
    refill(nowMs);
    pausedUntilMs = Math.max(pausedUntilMs, untilMs);
  }

  void resume(long nowMs) {
    refill(nowMs);
    pausedUntilMs = Long.MIN_VALUE;
  }

  boolean canPay(long cost, long nowMs) {
    return !paused(nowMs) && cost <= capacity && project(nowMs)[0] >= cost;
  }

  /** Acquire(cost, now); false (and nothing changed but the refill) when it cannot pay. */
  boolean acquire(long cost, long nowMs) {
    refill(nowMs);
    if (paused(nowMs) || tokens < cost) {
      return false;
    }
    tokens -= cost;
    return true;
  }

  /** Release(cost) of §3, applied by the caller only while the budget is while_in_flight. */
  void release(long cost) {
    long paid = Math.min(cost, debt);
    debt -= paid;
    tokens = Math.min(capacity, tokens + cost - paid);
  }

  /**
   * X5 for a time_based budget: the job really cost {@code actual} where it paid {@code charged}.
   * More is taken from the pool, and what it cannot cover is owed; less is refunded, paying the
   * debt first, never above capacity.
   */
  void settle(long charged, long actual, long nowMs) {
    refill(nowMs);
    if (actual >= charged) {
      long more = actual - charged;
      long taken = Math.min(tokens, more);
      tokens -= taken;
      debt += more - taken;
    } else {
      release(charged - actual);
    }
  }

  /**
   * For a time_based budget that cannot pay now: the instant it can (NextAvailable's {@code At});
   * {@code nowMs} when it can pay now; {@link Long#MAX_VALUE} for a concurrency budget that
   * cannot.
   */
  long payableAt(long cost, long nowMs) {
    if (paused(nowMs)) {
      return payableAt(cost, pausedUntilMs);
    }
    long[] p = project(nowMs);
    if (p[0] >= cost) {
      return nowMs;
    }
    if (!policy.timeBased() || cost > capacity) {
      return Long.MAX_VALUE;
    }
    long needed = (cost - p[0] + p[2]) * policy.durationMs() - p[1];
    long wait = Math.floorDiv(needed + policy.allocation() - 1, policy.allocation());
    return nowMs + Math.max(1, wait);
  }

  /**
   * Adopt(newPolicy, now) of §7: adjust, never reset; a switch to while_in_flight counts the
   * {@code inFlightCost} already running as holding slots (docs/decisions.md).
   */
  void adopt(ModelPolicy newPolicy, long nowMs, long inFlightCost) {
    refill(nowMs);
    boolean wasConcurrency = !policy.timeBased();
    long oldPeriod = policy.timeBased() ? policy.durationMs() : -1;
    long oldCapacity = capacity;
    capacity = newPolicy.capacity();
    if (wasConcurrency && !newPolicy.timeBased()) {
      long spare = tokens - debt + (capacity - oldCapacity);
      if (spare >= 0) {
        tokens = Math.min(spare, capacity);
        debt = 0;
      } else {
        tokens = 0;
        debt = -spare;
      }
    } else if (!newPolicy.timeBased()) {
      tokens = Math.max(0, capacity - inFlightCost);
      debt = Math.max(0, inFlightCost - capacity);
    } else if (wasConcurrency) {
      debt = 0; // a switch to time_based carries no debt; a rate change keeps a rate's debt
    }
    tokens = Math.min(tokens, capacity);
    long newPeriod = newPolicy.timeBased() ? newPolicy.durationMs() : -1;
    if (oldPeriod != newPeriod) {
      accrued = 0;
    }
    policy = newPolicy;
  }

  @Override
  public String toString() {
    return policy + " T=" + tokens + (debt > 0 ? " D=" + debt : "")
        + (policy.timeBased() ? " K=" + accrued + " L=" + lastRefillMs : "")
        + (pausedUntilMs == Long.MIN_VALUE ? "" : " P=" + pausedUntilMs);
  }
}

package io.sluice.engine.budget;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Capturing and resuming a bucket's token state (X4): a bucket resumed from a captured state
 * behaves exactly as the bucket it was captured from, and a clock behind the stored last refill
 * never drains it.
 */
class TokenBucketStateTest {
  private static final long T0 = 1_700_000_000_000L;
  /** 10 per minute: one token every 6 s. */
  private static final BudgetPolicy TEN_PER_MINUTE =
      new BudgetPolicy(10, StrategyType.TIME_BASED, 60_000, null, true);

  private static TokenBucket resumed(BucketState state, long nowMs) {
    TokenBucket bucket = new TokenBucket(TEN_PER_MINUTE, nowMs);
    bucket.resumeFrom(state);
    return bucket;
  }

  @Test
  void aResumedBucketAccruesFromTheCapturedStateAsTheOriginalDoes() {
    TokenBucket original = new TokenBucket(TEN_PER_MINUTE, T0);
    original.tryAcquire(10, T0);
    original.refill(T0 + 8_000);

    TokenBucket copy = resumed(original.state(), T0 + 20_000);

    assertThat(copy.state()).isEqualTo(new BucketState(1, 20_000, 0, T0 + 8_000));
    assertThat(copy.tokensAt(T0 + 11_999)).isEqualTo(original.tokensAt(T0 + 11_999)).isEqualTo(1);
    assertThat(copy.tokensAt(T0 + 12_000)).isEqualTo(original.tokensAt(T0 + 12_000)).isEqualTo(2);
    assertThat(copy.nextAvailable(3, T0 + 12_000))
        .isEqualTo(original.nextAvailable(3, T0 + 12_000))
        .isEqualTo(Availability.at(T0 + 18_000));
  }

  @Test
  void aClockBehindTheStoredLastRefillNeverDrainsTheBucket() {
    TokenBucket bucket = resumed(new BucketState(4, 3_000, 0, T0), T0 - 30_000);

    assertThat(bucket.tokensAt(T0 - 30_000)).isEqualTo(4);
    assertThat(bucket.tryAcquire(4, T0 - 30_000)).isTrue();
    assertThat(bucket.state()).isEqualTo(new BucketState(0, 3_000, 0, T0));
    assertThat(bucket.tokensAt(T0 + 5_699)).isZero();
    assertThat(bucket.tokensAt(T0 + 5_700)).isEqualTo(1);
  }
}

package io.sluice.engine.budget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.SluiceException;
import java.math.BigInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The token accounting of BUDGETS.md §3 and §7, on a bucket alone: exact integer drip, acquire,
 * release with debt, when a cost can next be paid, and adopting a new policy without a reset.
 */
class TokenBucketTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final long MINUTE_MS = 60_000;

  private static BudgetPolicy whileInFlight(long allocation) {
    return new BudgetPolicy(allocation, StrategyType.WHILE_IN_FLIGHT, 0, null);
  }

  private static BudgetPolicy timeBased(long allocation, long durationMs) {
    return new BudgetPolicy(allocation, StrategyType.TIME_BASED, durationMs, null);
  }

  private static BudgetPolicy timeBased(long allocation, long durationMs, long burst) {
    return new BudgetPolicy(allocation, StrategyType.TIME_BASED, durationMs, burst);
  }

  /** A bucket created at {@link #T0} and emptied by one acquire at {@link #T0}. */
  private static TokenBucket drained(BudgetPolicy policy) {
    TokenBucket bucket = new TokenBucket(policy, T0);
    assertThat(bucket.tryAcquire(policy.capacity(), T0)).isTrue();
    assertThat(bucket.tokens()).isZero();
    return bucket;
  }

  /** A concurrency bucket with {@code running} single-token jobs in flight. */
  private static TokenBucket running(long allocation, int running) {
    TokenBucket bucket = new TokenBucket(whileInFlight(allocation), T0);
    for (int i = 0; i < running; i++) {
      assertThat(bucket.tryAcquire(1, T0)).isTrue();
    }
    return bucket;
  }

  @Nested
  class InitialState {
    @Test
    void startsFullWithNoProgressAndNoDebt() {
      TokenBucket bucket = new TokenBucket(timeBased(100, 5 * MINUTE_MS), T0);

      assertThat(bucket.tokens()).isEqualTo(100);
      assertThat(bucket.accrued()).isZero();
      assertThat(bucket.debt()).isZero();
    }

    @Test
    void startsFullAtTheBurstWhenOneIsSet() {
      assertThat(new TokenBucket(timeBased(10_000, 3_600_000, 500), T0).tokens()).isEqualTo(500);
      assertThat(new TokenBucket(timeBased(10, 1_000, 50), T0).tokens()).isEqualTo(50);
    }

    @Test
    void startsAConcurrencyBucketWithEverySlotFree() {
      assertThat(new TokenBucket(whileInFlight(7), T0).tokens()).isEqualTo(7);
    }
  }

  @Nested
  class Refill {
    @Test
    void dripsContinuouslyRatherThanInFixedWindows() {
      TokenBucket bucket = drained(timeBased(100, 5 * MINUTE_MS));

      bucket.refill(T0 + MINUTE_MS);
      assertThat(bucket.tokens()).isEqualTo(20);
      bucket.refill(T0 + 4 * MINUTE_MS);
      assertThat(bucket.tokens()).isEqualTo(80);
      bucket.refill(T0 + 5 * MINUTE_MS);
      assertThat(bucket.tokens()).isEqualTo(100);
    }

    @Test
    void earnsAWholeTokenOnlyAtTheExactMillisecond() {
      TokenBucket bucket = drained(timeBased(100, 5 * MINUTE_MS)); // one token per 3000 ms

      bucket.refill(T0 + 2_999);
      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.accrued()).isEqualTo(299_900);

      bucket.refill(T0 + 3_000);
      assertThat(bucket.tokens()).isEqualTo(1);
      assertThat(bucket.accrued()).isZero();
    }

    @Test
    void keepsTheRemainderInTokenMilliseconds() {
      TokenBucket bucket = drained(timeBased(7, 1_000));

      bucket.refill(T0 + 300); // 2100 token·ms: 2 tokens, 100 left over

      assertThat(bucket.tokens()).isEqualTo(2);
      assertThat(bucket.accrued()).isEqualTo(100);
    }

    @Test
    void accruesExactlyAsMuchInManySmallRefillsAsInOneLongOne() {
      TokenBucket stepwise = drained(timeBased(7, 1_000));
      TokenBucket once = drained(timeBased(7, 1_000));

      for (long t = T0 + 13; t <= T0 + 13 * 70; t += 13) {
        stepwise.refill(t);
      }
      once.refill(T0 + 910);

      assertThat(stepwise.tokens()).isEqualTo(once.tokens()).isEqualTo(6);
      assertThat(stepwise.accrued()).isEqualTo(once.accrued()).isEqualTo(370);
    }

    @Test
    void accruesExactlyAcrossOneMillisecondRefills() {
      TokenBucket stepwise = drained(timeBased(3, 7));
      for (long t = T0 + 1; t <= T0 + 20; t++) {
        stepwise.refill(t);
      }

      assertThat(stepwise.tokens()).isEqualTo(3); // 60 token·ms would be 8, but the cap is 3
      assertThat(stepwise.accrued()).isZero();
    }

    @Test
    void neverHoldsMoreThanTheCapacity() {
      TokenBucket bucket = drained(timeBased(100, 5 * MINUTE_MS));

      bucket.refill(T0 + 50 * MINUTE_MS);

      assertThat(bucket.tokens()).isEqualTo(100);
      assertThat(bucket.accrued()).isZero();
    }

    @Test
    void banksNothingWhileFull() {
      TokenBucket bucket = new TokenBucket(timeBased(100, 5 * MINUTE_MS), T0);
      long later = T0 + 24 * 60 * MINUTE_MS;

      bucket.refill(later);
      assertThat(bucket.tryAcquire(100, later)).isTrue();

      assertThat(bucket.nextAvailable(1, later)).isEqualTo(Availability.at(later + 3_000));
      bucket.refill(later + 2_999);
      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.nextAvailable(1, later + 2_999))
          .isEqualTo(Availability.at(later + 3_000));
    }

    @Test
    void discardsTheRemainderAccruedWhileReachingFull() {
      TokenBucket bucket = drained(timeBased(2, 1_000));
      bucket.refill(T0 + 2_700); // full at T0 + 2000; the 700 ms past it are dropped

      assertThat(bucket.tokens()).isEqualTo(2);
      assertThat(bucket.accrued()).isZero();
      assertThat(bucket.tryAcquire(1, T0 + 2_700)).isTrue();
      assertThat(bucket.nextAvailable(2, T0 + 2_700)).isEqualTo(Availability.at(T0 + 3_200));
    }

    @Test
    void neverDrainsWhenTheClockGoesBackwards() {
      TokenBucket bucket = drained(timeBased(100, 5 * MINUTE_MS));
      bucket.refill(T0 + 7_000);
      assertThat(bucket.tokens()).isEqualTo(2);
      assertThat(bucket.accrued()).isEqualTo(100_000);

      bucket.refill(T0 + 1_000);
      assertThat(bucket.tokens()).isEqualTo(2);
      assertThat(bucket.accrued()).isEqualTo(100_000);

      bucket.refill(T0 + 9_000); // measured from T0 + 7000, not from the earlier reading
      assertThat(bucket.tokens()).isEqualTo(3);
      assertThat(bucket.accrued()).isZero();
    }

    @Test
    void leavesAConcurrencyBucketAloneHoweverMuchTimePasses() {
      TokenBucket bucket = running(5, 3);

      bucket.refill(T0 + 10 * 60 * MINUTE_MS);

      assertThat(bucket.tokens()).isEqualTo(2);
    }
  }

  @Nested
  class Acquire {
    @Test
    void takesTheCostWhenEveryTokenIsThere() {
      TokenBucket bucket = new TokenBucket(whileInFlight(10), T0);

      assertThat(bucket.tryAcquire(6, T0)).isTrue();
      assertThat(bucket.tokens()).isEqualTo(4);
      assertThat(bucket.tryAcquire(4, T0)).isTrue();
      assertThat(bucket.tokens()).isZero();
    }

    @Test
    void changesNothingWhenATokenIsMissing() {
      TokenBucket bucket = drained(timeBased(100, 5 * MINUTE_MS));
      bucket.refill(T0 + 7_000);

      assertThat(bucket.tryAcquire(3, T0 + 7_000)).isFalse();

      assertThat(bucket.tokens()).isEqualTo(2);
      assertThat(bucket.accrued()).isEqualTo(100_000);
    }

    @Test
    void settlesTheDripBeforeDeciding() {
      TokenBucket bucket = drained(timeBased(100, 5 * MINUTE_MS));

      assertThat(bucket.tryAcquire(1, T0 + 2_999)).isFalse();
      assertThat(bucket.tryAcquire(1, T0 + 3_000)).isTrue();
      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.tryAcquire(1, T0 + 5_999)).isFalse();
      assertThat(bucket.tryAcquire(1, T0 + 6_000)).isTrue();
    }
  }

  @Nested
  class Release {
    @Test
    void returnsTheCostToAConcurrencyBucket() {
      TokenBucket bucket = running(3, 3);

      bucket.release(1);

      assertThat(bucket.tokens()).isEqualTo(1);
      assertThat(bucket.debt()).isZero();
    }

    @Test
    void neverFillsPastTheCapacity() {
      TokenBucket bucket = running(3, 1);

      bucket.release(5);

      assertThat(bucket.tokens()).isEqualTo(3);
    }

    @Test
    void paysOffDebtBeforeFreeingSlots() {
      TokenBucket bucket = running(6, 6);
      bucket.adopt(whileInFlight(3), T0, 0); // debt 3

      bucket.release(2);
      assertThat(bucket.debt()).isEqualTo(1);
      assertThat(bucket.tokens()).isZero();

      bucket.release(2); // pays the last slot of debt, frees one
      assertThat(bucket.debt()).isZero();
      assertThat(bucket.tokens()).isEqualTo(1);
    }
  }

  @Nested
  class NextAvailable {
    @Test
    void isNowWhenTheTokensAreThere() {
      assertThat(new TokenBucket(whileInFlight(2), T0).nextAvailable(2, T0))
          .isEqualTo(Availability.NOW);
      assertThat(new TokenBucket(timeBased(5, 1_000), T0).nextAvailable(5, T0))
          .isEqualTo(Availability.NOW);
    }

    @Test
    void isNowOnceTheDripWouldHaveEarnedTheCostWithoutChangingTheBucket() {
      TokenBucket bucket = drained(timeBased(100, 5 * MINUTE_MS));

      assertThat(bucket.nextAvailable(2, T0 + 6_000)).isEqualTo(Availability.NOW);

      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.accrued()).isZero();
    }

    @Test
    void isTheExactMillisecondTheDripEarnsTheCost() {
      TokenBucket bucket = drained(timeBased(100, 5 * MINUTE_MS));

      assertThat(bucket.nextAvailable(1, T0)).isEqualTo(Availability.at(T0 + 3_000));
      // 100 000 token·ms banked by T0 + 1000; 5 tokens need 1 500 000: 14 000 ms more.
      assertThat(bucket.nextAvailable(5, T0 + 1_000)).isEqualTo(Availability.at(T0 + 15_000));
      assertThat(bucket.nextAvailable(1, T0 + 2_999)).isEqualTo(Availability.at(T0 + 3_000));
      assertThat(bucket.nextAvailable(1, T0 + 3_000)).isEqualTo(Availability.NOW);
    }

    @Test
    void roundsAPartialMillisecondUp() {
      TokenBucket bucket = drained(timeBased(7, 1_000)); // 1000/7 = 142.86 ms per token

      assertThat(bucket.nextAvailable(1, T0)).isEqualTo(Availability.at(T0 + 143));
      assertThat(bucket.tryAcquire(1, T0 + 142)).isFalse();
      assertThat(bucket.tryAcquire(1, T0 + 143)).isTrue();
    }

    @Test
    void isNeverEarlierThanOneMillisecondFromNow() {
      // 1000 tokens per millisecond: one token needs a thousandth of a millisecond.
      TokenBucket bucket = drained(timeBased(1_000_000, 1_000));

      assertThat(bucket.nextAvailable(1, T0)).isEqualTo(Availability.at(T0 + 1));
      assertThat(bucket.nextAvailable(1_000, T0)).isEqualTo(Availability.at(T0 + 1));
      assertThat(bucket.nextAvailable(1_001, T0)).isEqualTo(Availability.at(T0 + 2));
    }

    @Test
    void countsTheProgressAlreadyBanked() {
      TokenBucket bucket = drained(timeBased(1, MINUTE_MS));
      bucket.refill(T0 + 59_999);

      assertThat(bucket.accrued()).isEqualTo(59_999);
      assertThat(bucket.nextAvailable(1, T0 + 59_999)).isEqualTo(Availability.at(T0 + 60_000));
    }

    @Test
    void isOnReleaseForAConcurrencyBucketWithoutEnoughSlots() {
      TokenBucket bucket = running(3, 2);

      assertThat(bucket.nextAvailable(1, T0)).isEqualTo(Availability.NOW);
      assertThat(bucket.nextAvailable(2, T0)).isEqualTo(Availability.ON_RELEASE);
      assertThat(bucket.nextAvailable(2, T0 + 3_600_000)).isEqualTo(Availability.ON_RELEASE);
    }

    @Test
    void isOnReleaseWhileAConcurrencyBucketIsInDebt() {
      TokenBucket bucket = running(6, 6);
      bucket.adopt(whileInFlight(1), T0, 0);

      assertThat(bucket.nextAvailable(1, T0)).isEqualTo(Availability.ON_RELEASE);
    }

    @Test
    void isNeverForACostAboveTheCapacity() {
      assertThat(new TokenBucket(whileInFlight(3), T0).nextAvailable(4, T0))
          .isEqualTo(Availability.NEVER);
      assertThat(new TokenBucket(timeBased(10_000, 3_600_000, 500), T0).nextAvailable(501, T0))
          .isEqualTo(Availability.NEVER);
      assertThat(new TokenBucket(timeBased(10_000, 3_600_000, 500), T0).nextAvailable(500, T0))
          .isEqualTo(Availability.NOW);
    }
  }

  @Nested
  class And {
    private final Availability at5 = Availability.at(5);
    private final Availability at9 = Availability.at(9);

    @Test
    void keepsNowOnlyWhenBothAreNow() {
      assertThat(Availability.NOW.and(Availability.NOW)).isEqualTo(Availability.NOW);
    }

    @Test
    void combinesTwoInstantsToTheLaterOne() {
      assertThat(at5.and(at9)).isEqualTo(at9);
      assertThat(at9.and(at5)).isEqualTo(at9);
      assertThat(at9.and(at9)).isEqualTo(at9);
    }

    @Test
    void ranksNeverAboveOnReleaseAboveAtAboveNow() {
      Availability[] ascending =
          {Availability.NOW, at5, Availability.ON_RELEASE, Availability.NEVER};
      for (int i = 0; i < ascending.length; i++) {
        for (int j = 0; j < ascending.length; j++) {
          Availability expected = ascending[Math.max(i, j)];
          assertThat(ascending[i].and(ascending[j])).as("%s and %s", ascending[i], ascending[j])
              .isEqualTo(expected);
        }
      }
    }

    @Test
    void letsOnReleaseWinOverAnInstantSoNoTimerIsArmed() {
      assertThat(at9.and(Availability.ON_RELEASE)).isEqualTo(Availability.ON_RELEASE);
      assertThat(Availability.ON_RELEASE.and(at9)).isEqualTo(Availability.ON_RELEASE);
    }
  }

  @Nested
  class Adopt {
    @Test
    void leavesANarrowedConcurrencyBudgetInDebtForWhatStillRuns() {
      TokenBucket bucket = running(6, 6);

      bucket.adopt(whileInFlight(1), T0, 0);

      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.debt()).isEqualTo(5);
    }

    @Test
    void letsCompletionsOneToFiveOnlyPayTheDebtAfterCuttingSixToOne() {
      TokenBucket bucket = running(6, 6);
      bucket.adopt(whileInFlight(1), T0, 0);

      for (int completed = 1; completed <= 5; completed++) {
        bucket.release(1);
        assertThat(bucket.tokens()).as("tokens after completion %d", completed).isZero();
        assertThat(bucket.debt()).as("debt after completion %d", completed)
            .isEqualTo(5 - completed);
      }
      bucket.release(1);

      assertThat(bucket.tokens()).isEqualTo(1);
      assertThat(bucket.debt()).isZero();
    }

    @Test
    void handsOutNewSlotsAtOnceWhenAConcurrencyBudgetWidens() {
      TokenBucket bucket = running(2, 2);

      bucket.adopt(whileInFlight(5), T0, 0);

      assertThat(bucket.tokens()).isEqualTo(3);
      assertThat(bucket.debt()).isZero();
    }

    @Test
    void letsWideningPayOffDebtFirst() {
      TokenBucket bucket = running(6, 6);
      bucket.adopt(whileInFlight(1), T0, 0); // debt 5

      bucket.adopt(whileInFlight(4), T0, 0); // 3 more slots, all owed

      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.debt()).isEqualTo(2);

      bucket.adopt(whileInFlight(8), T0, 0);
      assertThat(bucket.tokens()).isEqualTo(2);
      assertThat(bucket.debt()).isZero();
    }

    @Test
    void narrowsAnIdleConcurrencyBudgetToItsNewSize() {
      TokenBucket bucket = running(10, 0);

      bucket.adopt(whileInFlight(4), T0, 0);

      assertThat(bucket.tokens()).isEqualTo(4);
      assertThat(bucket.debt()).isZero();
    }

    @Test
    void keepsProgressWhenOnlyTheRateChanges() {
      TokenBucket bucket = drained(timeBased(1, MINUTE_MS));

      bucket.adopt(timeBased(120, MINUTE_MS), T0 + 30_000, 0);

      assertThat(bucket.accrued()).isEqualTo(30_000);
      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.nextAvailable(1, T0 + 30_000)).isEqualTo(Availability.at(T0 + 30_250));
    }

    @Test
    void keepsProgressWhenOnlyTheBurstChanges() {
      TokenBucket bucket = drained(timeBased(2, MINUTE_MS));

      bucket.adopt(timeBased(2, MINUTE_MS, 10), T0 + 20_000, 0);

      assertThat(bucket.accrued()).isEqualTo(40_000);
      assertThat(bucket.nextAvailable(1, T0 + 20_000)).isEqualTo(Availability.at(T0 + 30_000));
    }

    @Test
    void discardsProgressWhenThePeriodChanges() {
      TokenBucket bucket = drained(timeBased(1, MINUTE_MS));

      bucket.adopt(timeBased(2, 1_000), T0 + 30_000, 0);

      assertThat(bucket.accrued()).isZero();
      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.nextAvailable(1, T0 + 30_000)).isEqualTo(Availability.at(T0 + 30_500));
    }

    @Test
    void settlesTheDripAtTheOldRateFirst() {
      TokenBucket bucket = drained(timeBased(5, 5 * MINUTE_MS)); // one token per minute

      // 1.5 minutes at the old rate: one whole token (at the new rate it would be full).
      bucket.adopt(timeBased(5, 5_000), T0 + 90_000, 0);

      assertThat(bucket.tokens()).isEqualTo(1);
      assertThat(bucket.accrued()).isZero();
    }

    @Test
    void doesNotRefillToTheNewCapacity() {
      TokenBucket bucket = new TokenBucket(timeBased(10, MINUTE_MS), T0);

      bucket.adopt(timeBased(20, MINUTE_MS), T0 + 1_000, 0);

      assertThat(bucket.tokens()).isEqualTo(10);
      bucket.refill(T0 + 4_000); // 20 per minute: one token every 3000 ms from the change on
      assertThat(bucket.tokens()).isEqualTo(11);
    }

    @Test
    void capsTheTokensWhenTheCapacityTightens() {
      TokenBucket bucket = new TokenBucket(timeBased(100, 5 * MINUTE_MS), T0);

      bucket.adopt(timeBased(100, 5 * MINUTE_MS, 10), T0, 0);
      assertThat(bucket.tokens()).isEqualTo(10);

      bucket.adopt(timeBased(4, 5 * MINUTE_MS), T0, 0);
      assertThat(bucket.tokens()).isEqualTo(4);
    }

    @Test
    void carriesOnlyWhatFitsAndNoDebtWhenSwitchingToARate() {
      TokenBucket bucket = running(10, 7); // 3 free

      bucket.adopt(timeBased(2, 1_000), T0, 0);

      assertThat(bucket.tokens()).isEqualTo(2);
      assertThat(bucket.debt()).isZero();
      assertThat(bucket.accrued()).isZero();
    }

    @Test
    void dropsTheDebtWhenSwitchingToARate() {
      TokenBucket bucket = running(6, 6);
      bucket.adopt(whileInFlight(1), T0, 0); // debt 5

      bucket.adopt(timeBased(5, 1_000), T0, 0);

      assertThat(bucket.debt()).isZero();
      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.nextAvailable(1, T0)).isEqualTo(Availability.at(T0 + 200));
    }

    @Test
    void carriesOnlyWhatFitsWhenSwitchingToConcurrency() {
      TokenBucket bucket = new TokenBucket(timeBased(10, MINUTE_MS), T0);
      assertThat(bucket.tryAcquire(6, T0)).isTrue();

      bucket.adopt(whileInFlight(3), T0 + 5_000, 0); // 4 + 0.83 tokens settled first

      assertThat(bucket.tokens()).isEqualTo(3);
      assertThat(bucket.debt()).isZero();
      assertThat(bucket.accrued()).isZero();
      bucket.refill(T0 + 3_600_000);
      assertThat(bucket.tokens()).isEqualTo(3);
    }

    @Test
    void countsWhatIsInFlightAsHeldSlotsWhenSwitchingToConcurrency() {
      TokenBucket bucket = drained(timeBased(10, MINUTE_MS));

      bucket.adopt(whileInFlight(5), T0 + 12_000, 3);

      assertThat(bucket.tokens()).isEqualTo(2);
      assertThat(bucket.debt()).isZero();
      assertThat(bucket.nextAvailable(3, T0 + 12_000)).isEqualTo(Availability.ON_RELEASE);
    }

    @Test
    void owesTheOverflowWhenMoreIsInFlightThanTheNewConcurrencyAllows() {
      TokenBucket bucket = drained(timeBased(10, MINUTE_MS));

      bucket.adopt(whileInFlight(2), T0, 5);

      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.debt()).isEqualTo(3);
    }

    @Test
    void startsAFullPoolWhenSwitchingToConcurrencyWithNothingInFlight() {
      TokenBucket bucket = drained(timeBased(1, 1));

      bucket.adopt(whileInFlight(3), T0, 0);

      assertThat(bucket.tokens()).isEqualTo(3);
    }

    @Test
    void appliesTheNewPolicyToLaterDecisions() {
      TokenBucket bucket = drained(timeBased(1, MINUTE_MS));

      bucket.adopt(timeBased(1, MINUTE_MS, 3), T0, 0);

      assertThat(bucket.policy()).isEqualTo(timeBased(1, MINUTE_MS, 3));
      assertThat(bucket.nextAvailable(3, T0)).isEqualTo(Availability.at(T0 + 180_000));
      bucket.refill(T0 + 10 * MINUTE_MS);
      assertThat(bucket.tokens()).isEqualTo(3);
    }
  }

  @Nested
  class Overflow {
    @Test
    void refillsOverAHugeElapsedTimeWithoutOverflowing() {
      TokenBucket bucket = new TokenBucket(timeBased(1_000_000, 1), 0);
      assertThat(bucket.tryAcquire(1_000_000, 0)).isTrue();

      bucket.refill(Long.MAX_VALUE); // elapsed × allocation is about 2^83

      assertThat(bucket.tokens()).isEqualTo(1_000_000);
      assertThat(bucket.accrued()).isZero();
    }

    @Test
    void keepsTheExactRemainderWhenTheProductExceeds64Bits() {
      long durationMs = Long.MAX_VALUE;
      TokenBucket bucket = new TokenBucket(timeBased(1_000_000, durationMs), 0);
      assertThat(bucket.tryAcquire(1_000_000, 0)).isTrue();
      long elapsed = Long.MAX_VALUE / 999_999; // × 1 000 000 > 2^63, < 2 × duration

      bucket.refill(elapsed);

      BigInteger banked = BigInteger.valueOf(elapsed).multiply(BigInteger.valueOf(1_000_000));
      BigInteger[] split = banked.divideAndRemainder(BigInteger.valueOf(durationMs));
      assertThat(bucket.tokens()).isEqualTo(split[0].longValueExact()).isEqualTo(1);
      assertThat(bucket.accrued()).isEqualTo(split[1].longValueExact());
    }

    @Test
    void addsBankedProgressAndNewAccrualBeyond64Bits() {
      long durationMs = Long.MAX_VALUE - 1;
      TokenBucket bucket = new TokenBucket(timeBased(2, durationMs), 0);
      assertThat(bucket.tryAcquire(2, 0)).isTrue();
      long half = Long.MAX_VALUE / 2; // 2 × half = durationMs: exactly one token

      bucket.refill(half - 1);
      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.accrued()).isEqualTo(durationMs - 2);

      bucket.refill(half + 1); // K + 2 × 2 = duration + 2: does not fit a long before dividing
      assertThat(bucket.tokens()).isEqualTo(1);
      assertThat(bucket.accrued()).isEqualTo(2);
    }

    @Test
    void reportsAFarFutureInstantRatherThanAWrappedOne() {
      long nowMs = Long.MAX_VALUE - 10;
      TokenBucket bucket = new TokenBucket(timeBased(1, Long.MAX_VALUE), nowMs);
      assertThat(bucket.tryAcquire(1, nowMs)).isTrue();

      Availability next = bucket.nextAvailable(1, nowMs); // now + (2^63 - 1) would wrap

      assertThat(next.kind()).isEqualTo(Availability.Kind.AT);
      assertThat(next.atMs()).isGreaterThan(nowMs);
    }

    @Test
    void waitsOutAWholeLongPeriodFromTheEpoch() {
      TokenBucket bucket = new TokenBucket(timeBased(1, Long.MAX_VALUE), 0);
      assertThat(bucket.tryAcquire(1, 0)).isTrue();

      Availability next = bucket.nextAvailable(1, Long.MAX_VALUE - 10); // 10 ms of it left

      assertThat(next).isEqualTo(Availability.at(Long.MAX_VALUE));
    }

    @Test
    void waitsForALargeCostOverALongPeriodWithoutOverflowing() {
      TokenBucket bucket = new TokenBucket(timeBased(1, Long.MAX_VALUE / 2, 1_000_000), T0);
      assertThat(bucket.tryAcquire(1_000_000, T0)).isTrue();

      Availability next = bucket.nextAvailable(1_000_000, T0); // 10^6 × 2^62 ms away

      assertThat(next.kind()).isEqualTo(Availability.Kind.AT);
      assertThat(next.atMs()).isGreaterThan(T0);
    }
  }

  @Nested
  class Validate {
    private BudgetPolicy validate(long allocation, String type, Long durationMs, Long burst) {
      return BudgetPolicy.validate(new PolicySpec(allocation, type, durationMs, burst));
    }

    private void assertRejected(long allocation, String type, Long durationMs, Long burst,
        String message) {
      assertThatThrownBy(() -> validate(allocation, type, durationMs, burst))
          .isInstanceOf(SluiceException.Unprocessable.class)
          .hasMessage(message);
    }

    @Test
    void acceptsAConcurrencyPolicy() {
      assertThat(validate(10, "while_in_flight", null, null))
          .isEqualTo(new BudgetPolicy(10, StrategyType.WHILE_IN_FLIGHT, 0, null));
    }

    @Test
    void acceptsARatePolicyWithAndWithoutBurst() {
      assertThat(validate(6, "time_based", 60_000L, null))
          .isEqualTo(new BudgetPolicy(6, StrategyType.TIME_BASED, 60_000, null));
      assertThat(validate(10_000, "time_based", 3_600_000L, 500L).capacity()).isEqualTo(500);
    }

    @Test
    void acceptsABurstAboveTheAllocation() {
      assertThat(validate(10_000, "time_based", 3_600_000L, 50_000L).capacity())
          .isEqualTo(50_000);
    }

    @Test
    void acceptsTheLimitsThemselves() {
      assertThat(validate(1, "while_in_flight", null, null).capacity()).isEqualTo(1);
      assertThat(validate(1_000_000, "while_in_flight", null, null).capacity())
          .isEqualTo(1_000_000);
      assertThat(validate(1, "time_based", 1L, 1L).capacity()).isEqualTo(1);
      assertThat(validate(1, "time_based", 1L, 1_000_000L).capacity()).isEqualTo(1_000_000);
    }

    @Test
    void takesTheAllocationAsCapacityWithoutABurst() {
      assertThat(validate(6, "time_based", 60_000L, null).capacity()).isEqualTo(6);
      assertThat(validate(7, "while_in_flight", null, null).capacity()).isEqualTo(7);
    }

    @Test
    void rejectsAnAllocationBelowOne() {
      assertRejected(0, "while_in_flight", null, null, "budget allocation must be at least 1");
      assertRejected(-5, "time_based", 1_000L, null, "budget allocation must be at least 1");
    }

    @Test
    void rejectsAnAllocationAboveAMillion() {
      assertRejected(1_000_001, "while_in_flight", null, null,
          "budget allocation must not exceed 1000000");
    }

    @Test
    void rejectsARateWithoutPeriod() {
      assertRejected(6, "time_based", null, null, "time_based budget requires duration_ms");
    }

    @Test
    void rejectsAPeriodBelowOneMillisecond() {
      assertRejected(6, "time_based", 0L, null,
          "time_based budget duration_ms must be at least 1");
      assertRejected(6, "time_based", -1L, null,
          "time_based budget duration_ms must be at least 1");
    }

    @Test
    void rejectsABurstBelowOne() {
      assertRejected(6, "time_based", 1_000L, 0L, "time_based budget burst must be at least 1");
    }

    @Test
    void rejectsABurstAboveAMillion() {
      assertRejected(6, "time_based", 1_000L, 1_000_001L,
          "time_based budget burst must not exceed 1000000");
    }

    @Test
    void rejectsAPeriodOnAConcurrencyBudget() {
      assertRejected(6, "while_in_flight", 1_000L, null,
          "while_in_flight budget cannot take a duration_ms");
    }

    @Test
    void rejectsABurstOnAConcurrencyBudget() {
      assertRejected(6, "while_in_flight", null, 10L,
          "while_in_flight budget cannot take a burst");
    }

    @Test
    void rejectsAnUnknownStrategy() {
      assertRejected(6, "leaky_bucket", null, null, "unknown budget strategy: leaky_bucket");
      assertRejected(6, "Time_Based", 1_000L, null, "unknown budget strategy: Time_Based");
    }

    @Test
    void reportsTheFirstBrokenRuleInTableOrder() {
      assertRejected(0, "leaky_bucket", null, null, "budget allocation must be at least 1");
      assertRejected(2_000_000, "time_based", null, 0L,
          "budget allocation must not exceed 1000000");
      assertRejected(6, "time_based", null, 0L, "time_based budget requires duration_ms");
      assertRejected(6, "time_based", 0L, 0L, "time_based budget duration_ms must be at least 1");
      assertRejected(6, "time_based", 1L, 0L, "time_based budget burst must be at least 1");
      assertRejected(6, "while_in_flight", 1_000L, 10L,
          "while_in_flight budget cannot take a duration_ms");
    }
  }

  /** X5: a rate bucket settled at acknowledgement, debt paid by the drip before any token. */
  @Nested
  class Settlement {
    /** 1 token a second, capacity 10, with {@code spent} tokens taken at {@link #T0}. */
    private TokenBucket spent(long spent) {
      TokenBucket bucket = new TokenBucket(timeBased(10, 10_000), T0);
      assertThat(bucket.tryAcquire(spent, T0)).isTrue();
      return bucket;
    }

    @Test
    void aDifferenceThePoolCoversIsTakenFromIt() {
      TokenBucket bucket = spent(2);
      bucket.settle(5, T0);

      assertThat(bucket.tokens()).isEqualTo(3);
      assertThat(bucket.debt()).isZero();
    }

    @Test
    void whatThePoolCannotCoverBecomesDebtAndTheDripPaysItBeforeAnyToken() {
      TokenBucket bucket = spent(2);
      bucket.settle(18, T0);

      assertThat(bucket.tokens()).isZero();
      assertThat(bucket.debt()).isEqualTo(10);
      assertThat(bucket.debtAt(T0 + 9_999)).isEqualTo(1);
      assertThat(bucket.tokensAt(T0 + 9_999)).isZero();
      assertThat(bucket.debtAt(T0 + 10_000)).isZero();
      assertThat(bucket.tokensAt(T0 + 10_999)).isZero();
      assertThat(bucket.tokensAt(T0 + 11_000)).isEqualTo(1);
      assertThat(bucket.tryAcquire(1, T0 + 10_999)).isFalse();
      assertThat(bucket.tryAcquire(1, T0 + 11_000)).isTrue();
    }

    @Test
    void whenACostCanBePaidCountsTheDebtFirst() {
      TokenBucket bucket = spent(10);
      bucket.settle(4, T0 + 500);

      // 4 owed, then 3 tokens, with half a token accrued at the settlement: 6.5 s.
      assertThat(bucket.nextAvailable(3, T0 + 500)).isEqualTo(Availability.at(T0 + 7_000));
      assertThat(bucket.accrualAt(3, T0 + 500)).isEqualTo(T0 + 7_000);
      assertThat(bucket.nextAvailable(3, T0 + 6_999).kind()).isEqualTo(Availability.Kind.AT);
      assertThat(bucket.nextAvailable(3, T0 + 7_000)).isEqualTo(Availability.NOW);
    }

    @Test
    void aRefundPaysDebtFirstThenTokens() {
      TokenBucket bucket = spent(10);
      bucket.settle(7, T0);
      bucket.settle(-5, T0);

      assertThat(bucket.debt()).isEqualTo(2);
      assertThat(bucket.tokens()).isZero();
      bucket.settle(-6, T0);
      assertThat(bucket.debt()).isZero();
      assertThat(bucket.tokens()).isEqualTo(4);
    }

    @Test
    void aRefundNeverFillsAboveTheCapacity() {
      TokenBucket bucket = spent(5);
      bucket.settle(-5, T0 + 5_000);

      assertThat(bucket.tokens()).isEqualTo(10);
      assertThat(bucket.tokensAt(T0 + 60_000)).isEqualTo(10);
    }

    @Test
    void aChangeOfRateKeepsTheDebtAndASwitchOfStrategyDropsIt() {
      TokenBucket bucket = spent(10);
      bucket.settle(6, T0);
      bucket.adopt(timeBased(20, 10_000), T0, 0);

      assertThat(bucket.debt()).isEqualTo(6);
      assertThat(bucket.debtAt(T0 + 2_500)).isOne();
      bucket.adopt(whileInFlight(3), T0 + 2_500, 0);
      assertThat(bucket.debt()).isZero();
    }
  }
}

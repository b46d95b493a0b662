package io.sluice.engine.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** delay_ms = base_ms + attempts^exponent * 1000 + U * jitter_ms * attempts (API.md §4.3). */
class BackoffPolicyTest {
  private static final BackoffPolicy DEFAULTS = BackoffPolicy.DEFAULT;
  private static final double MAX_UNIFORM = 0.999999;

  @Test
  void defaultsToFifteenSecondsExponentFourAndThirtySecondsJitter() {
    assertThat(DEFAULTS).isEqualTo(new BackoffPolicy(15_000, 4.0f, 30_000));
  }

  @Nested
  class DelayMs {
    @ParameterizedTest(name = "attempts {0}, U {1} -> {2} ms")
    @CsvSource({
      "1,  0.0, 16000",
      "2,  0.0, 31000",
      "3,  0.0, 96000",
      "10, 0.0, 10015000",
      "25, 0.0, 390640000",
      "1,  0.5, 31000",
      "2,  0.5, 61000",
      "3,  0.5, 141000",
      "25, 0.5, 391015000",
    })
    void computesTheDefaultDelayWithThePowerTermInSeconds(int attempts, double uniform, long ms) {
      assertThat(DEFAULTS.delayMs(attempts, uniform)).isEqualTo(ms);
    }

    @Test
    void growsTheJitterWithTheAttemptCount() {
      BackoffPolicy jitterOnly = new BackoffPolicy(0, 0f, 1_000);

      // a^0 = 1, so only the 1000 ms power term and the jitter remain.
      assertThat(jitterOnly.delayMs(1, 0.5)).isEqualTo(1_000 + 500);
      assertThat(jitterOnly.delayMs(4, 0.5)).isEqualTo(1_000 + 2_000);
    }

    @Test
    void acceptsAFractionalExponent() {
      assertThat(new BackoffPolicy(0, 1.5f, 0).delayMs(4, 0)).isEqualTo(8_000);
    }

    @Test
    void truncatesToWholeMilliseconds() {
      // sqrt(2) * 1000 = 1414.21...
      assertThat(new BackoffPolicy(0, 0.5f, 0).delayMs(2, 0)).isEqualTo(1_414);
      assertThat(new BackoffPolicy(0, 0f, 3).delayMs(1, 0.5)).isEqualTo(1_001);
    }

    @Test
    void saturatesInsteadOfOverflowing() {
      assertThat(new BackoffPolicy(0, 100f, 0).delayMs(25, 0)).isEqualTo(Long.MAX_VALUE);
    }
  }

  /** CLI.md §4: the acceptance test that pins the default retry window. */
  @Nested
  class DefaultRetryWindow {
    @Test
    void spansTwentyFourToTwentySixDaysWithoutJitter() {
      assertThat(totalOfTwentyFiveDelays(0.0)).isBetween(days(24), days(26));
    }

    @Test
    void spansTwentyFourToTwentySixDaysWithMaximumJitter() {
      assertThat(totalOfTwentyFiveDelays(MAX_UNIFORM)).isBetween(days(24), days(26));
    }

    @Test
    void sumsTheMinimumDelaysToExactlyTheDocumentedSeconds() {
      // sum(a^4, a = 1..25) = 2,153,645 s, plus 25 * 15 s of base delay.
      assertThat(totalOfTwentyFiveDelays(0.0)).isEqualTo((2_153_645L + 375L) * 1_000);
    }

    private long totalOfTwentyFiveDelays(double uniform) {
      long totalMs = 0;
      for (int attempts = 1; attempts <= 25; attempts++) {
        totalMs += DEFAULTS.delayMs(attempts, uniform);
      }
      return totalMs;
    }

    private long days(int n) {
      return Duration.ofDays(n).toMillis();
    }
  }
}

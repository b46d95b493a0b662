package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ManyBudgetsMathTest {

  private static final long MS = 1_000_000;

  @Test
  void durationsAreStaggeredBetweenOneAndTwoSeconds() {
    assertThat(ManyBudgetsMath.durationMillis(0)).isEqualTo(1000);
    assertThat(ManyBudgetsMath.durationMillis(1)).isEqualTo(1037);
    assertThat(ManyBudgetsMath.durationMillis(27)).isEqualTo(1999);
    assertThat(ManyBudgetsMath.durationMillis(28)).isEqualTo(1036);
    for (int i = 0; i < 8192; i++) {
      assertThat(ManyBudgetsMath.durationMillis(i)).isBetween(1000L, 1999L);
    }
  }

  @Test
  void jobsAreBoundToBudgetsInBlocks() {
    assertThat(ManyBudgetsMath.budgetOf(0, 4)).isZero();
    assertThat(ManyBudgetsMath.budgetOf(3, 4)).isZero();
    assertThat(ManyBudgetsMath.budgetOf(4, 4)).isEqualTo(1);
  }

  @Test
  void idealCountIsOneAtOnceThenOnePerPeriodCappedByTheBacklog() {
    // budget 0: 1000 ms, budget 1: 1037 ms
    assertThat(ManyBudgetsMath.idealDispatches(2, 4, 0)).isEqualTo(2);
    assertThat(ManyBudgetsMath.idealDispatches(2, 4, 1_000 * MS)).isEqualTo(3);
    assertThat(ManyBudgetsMath.idealDispatches(2, 4, 1_037 * MS)).isEqualTo(4);
    assertThat(ManyBudgetsMath.idealDispatches(2, 4, 60_000 * MS)).isEqualTo(8);
  }

  @Test
  void idealDrainIsTheSlowestBudgetsRemainingPeriods() {
    assertThat(ManyBudgetsMath.idealDrainNanos(1, 4)).isEqualTo(3_000 * MS);
    assertThat(ManyBudgetsMath.idealDrainNanos(2, 4)).isEqualTo(3 * 1_037 * MS);
    assertThat(ManyBudgetsMath.idealDrainNanos(8192, 4)).isEqualTo(3 * 1_999 * MS);
    assertThat(ManyBudgetsMath.idealDrainNanos(8192, 1)).isZero();
  }

  @Test
  void gapsMeasureLatenessPerBudgetRegardlessOfArrivalOrderAndSkipMissingJobs() {
    // two budgets of two jobs each; budget 0 period 1000 ms, budget 1 period 1037 ms
    long[] receipts = {
        1_005 * MS, 5 * MS,          // budget 0, listed out of order: gap 1000 ms -> lateness 0
        10 * MS, 0,                  // budget 1: second job never arrived -> no gap
    };
    ManyBudgetsMath.Gaps g = ManyBudgetsMath.gaps(receipts, 2, 2, 250 * MS);
    assertThat(g.lateness()).containsExactly(0L);
    assertThat(g.early()).isZero();

    long[] late = {0 + 1, 1_003 * MS + 1, 10 * MS, 1_047 * MS + 2 * MS};
    assertThat(ManyBudgetsMath.gaps(late, 2, 2, 250 * MS).lateness()).containsExactly(3 * MS, 2 * MS);
  }

  @Test
  void aGapFarShorterThanThePeriodIsCountedAsEarly() {
    long[] receipts = {1, 600 * MS, 10 * MS, 900 * MS};
    ManyBudgetsMath.Gaps g = ManyBudgetsMath.gaps(receipts, 2, 2, 250 * MS);
    // budget 0: gap ~600 ms vs 1000 -> 400 ms early; budget 1: 890 vs 1037 -> 147 ms early, tolerated
    assertThat(g.early()).isEqualTo(1);
    assertThat(g.lateness()).hasSize(2);
  }
}

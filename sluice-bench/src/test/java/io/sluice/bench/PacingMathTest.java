package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PacingMathTest {

  private static final long MS = 1_000_000;
  private static final long PERIOD = 10 * MS;

  private static long[] grid(long origin, int n) {
    long[] r = new long[n];
    for (int i = 0; i < n; i++) {
      r[i] = origin + i * PERIOD;
    }
    return r;
  }

  @Test
  void aPerfectScheduleDeviatesByNothingWhateverItsOrigin() {
    long[] r = grid(123_456_789L, 100);
    assertThat(PacingMath.gridOffset(r, PERIOD)).isEqualTo(123_456_789L);
    assertThat(PacingMath.gridDeviations(r, PERIOD)).containsOnly(0L);
    assertThat(PacingMath.intervalDeviations(r, PERIOD)).hasSize(99).containsOnly(0L);
    assertThat(PacingMath.drift(r, PERIOD)).isZero();
  }

  @Test
  void anEarlyFirstReceiptDoesNotShiftTheFittedGrid() {
    long[] r = grid(1_000 * MS, 101);
    r[0] -= 7 * MS; // e.g. a bucket that started full and paid before the schedule began
    long[] dev = PacingMath.gridDeviations(r, PERIOD);
    assertThat(dev[0]).isEqualTo(7 * MS);
    for (int i = 1; i < dev.length; i++) {
      assertThat(dev[i]).isZero();
    }
  }

  @Test
  void deviationsAreAbsoluteDistancesFromTheFittedGrid() {
    // residuals 0, +1, -1, +3, 0 ms -> median 0
    long[] r = {0, PERIOD + MS, 2 * PERIOD - MS, 3 * PERIOD + 3 * MS, 4 * PERIOD};
    assertThat(PacingMath.gridOffset(r, PERIOD)).isZero();
    assertThat(PacingMath.gridDeviations(r, PERIOD)).containsExactly(0, MS, MS, 3 * MS, 0);
    assertThat(PacingMath.intervalDeviations(r, PERIOD)).containsExactly(MS, 2 * MS, 4 * MS, 3 * MS);
    assertThat(PacingMath.drift(r, PERIOD)).isZero();
  }

  @Test
  void aScheduleThatSlipsShowsInDriftAndGrowingGridDeviation() {
    long[] r = new long[5];
    for (int i = 0; i < r.length; i++) {
      r[i] = i * (PERIOD + MS); // every dispatch 1 ms late relative to the previous one
    }
    assertThat(PacingMath.intervalDeviations(r, PERIOD)).containsOnly(MS);
    assertThat(PacingMath.drift(r, PERIOD)).isEqualTo(4 * MS);
    // residuals 0..4 ms, median 2 ms
    assertThat(PacingMath.gridDeviations(r, PERIOD)).containsExactly(2 * MS, MS, 0, MS, 2 * MS);
  }

  @Test
  void handoverIsFromEachAckToTheNextArrival() {
    long[] receipts = {100, 250, 400};
    long[] ackSent = {110, 260, 410};
    assertThat(PacingMath.ackToNext(ackSent, receipts)).containsExactly(140, 140);
  }

  @Test
  void degenerateInputsGiveEmptyResults() {
    assertThat(PacingMath.gridDeviations(new long[0], PERIOD)).isEmpty();
    assertThat(PacingMath.intervalDeviations(new long[] {5}, PERIOD)).isEmpty();
    assertThat(PacingMath.drift(new long[] {5}, PERIOD)).isZero();
    assertThat(PacingMath.ackToNext(new long[] {1}, new long[] {0})).isEmpty();
    assertThat(PacingMath.ackToNext(new long[0], new long[0])).isEmpty();
  }

  @Test
  void wholeMillisecondDispatchInstantsFitTheSameGrid() {
    long[] dispatched = PacingMath.millisToNanos(new long[] {1_000, 1_010, 1_021, 1_030});
    assertThat(dispatched).containsExactly(1_000_000_000L, 1_010_000_000L, 1_021_000_000L, 1_030_000_000L);
    assertThat(PacingMath.gridDeviations(dispatched, 10_000_000L))
        .containsExactly(0L, 0L, 1_000_000L, 0L);
  }
}

package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class BudgetOverheadWorkloadTest {

  @Test
  void overheadIsExtraTimePerJob() {
    assertThat(BudgetOverheadWorkload.overheadPct(10_000, 10_000)).isEqualTo(0.0);
    // 10,000 vs 8,000 jobs/s: each bound job takes 125 us instead of 100 us
    assertThat(BudgetOverheadWorkload.overheadPct(10_000, 8_000)).isCloseTo(25.0, within(1e-9));
    assertThat(BudgetOverheadWorkload.overheadPct(10_000, 12_500)).isCloseTo(-20.0, within(1e-9));
  }

  @Test
  void eachRunMeasuresBothSidesTwiceInMirroredOrder() {
    assertThat(BudgetOverheadWorkload.passOrder(true)).containsExactly(true, false, false, true);
    assertThat(BudgetOverheadWorkload.passOrder(false)).containsExactly(false, true, true, false);
  }
}

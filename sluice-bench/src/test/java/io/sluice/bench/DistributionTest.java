package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DistributionTest {

  @Test
  void nearestRankPercentilesOfOneToAHundred() {
    long[] xs = new long[100];
    for (int i = 0; i < xs.length; i++) {
      xs[xs.length - 1 - i] = i + 1; // unsorted on purpose
    }
    Distribution d = Distribution.of(xs);
    assertThat(d.count()).isEqualTo(100);
    assertThat(d.p50()).isEqualTo(50);
    assertThat(d.p90()).isEqualTo(90);
    assertThat(d.p99()).isEqualTo(99);
    assertThat(d.max()).isEqualTo(100);
    assertThat(d.min()).isEqualTo(1);
    assertThat(xs[0]).isEqualTo(100); // input left untouched
  }

  @Test
  void smallSamplesAndSignedValues() {
    Distribution one = Distribution.of(new long[] {7});
    assertThat(one.p50()).isEqualTo(7);
    assertThat(one.p99()).isEqualTo(7);
    Distribution signed = Distribution.of(new long[] {-5, 3, -1});
    assertThat(signed.p50()).isEqualTo(-1);
    assertThat(signed.max()).isEqualTo(3);
    assertThat(signed.min()).isEqualTo(-5);
    assertThat(Distribution.of(new long[0])).isEqualTo(Distribution.EMPTY);
  }

  @Test
  void medianOfOddAndEvenCounts() {
    assertThat(Distribution.median(new long[] {3, 1, 2})).isEqualTo(2);
    assertThat(Distribution.median(new long[] {4, 1, 2, 3})).isEqualTo(2); // (2 + 3) / 2, floored
    assertThat(Distribution.median(new long[] {-3, -2})).isEqualTo(-3); // floor, not toward zero
    assertThatThrownBy(() -> Distribution.median(new long[0])).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void resultMapInMilliseconds() {
    Map<String, Object> m = new LinkedHashMap<>();
    Distribution.of(new long[] {1_500_000, 2_000_000}).putMs(m, "x");
    assertThat(m).containsEntry("x_n", 2).containsEntry("x_p50_ms", 1.5).containsEntry("x_max_ms", 2.0);
  }
}

package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuietTest {
  private static final long MS = 1_000_000L;

  @Test
  void aTenthOfACoreOrLessIsQuiet() {
    assertThat(Quiet.isQuiet(0, 500 * MS)).isTrue();
    assertThat(Quiet.isQuiet(50 * MS, 500 * MS)).isTrue();
    assertThat(Quiet.isQuiet(51 * MS, 500 * MS)).isFalse();
    assertThat(Quiet.isQuiet(900 * MS, 500 * MS)).as("two busy cores").isFalse();
  }

  @Test
  void noElapsedTimeIsNeverQuiet() {
    assertThat(Quiet.isQuiet(0, 0)).isFalse();
  }
}

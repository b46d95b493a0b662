package io.sluice.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NamesTest {

  @Test
  void ordinaryNamesAreValid() {
    assertThat(Names.violation("queue", "emails")).isNull();
    assertThat(Names.violation("queue", "a.b-c_d:e/f 1")).isNull();
    assertThat(Names.violation("queue", "ünïcödé ✓")).isNull();
  }

  @Test
  void eachRuleIsNamed() {
    assertThat(Names.violation("queue", "")).isEqualTo("queue must not be empty");
    assertThat(Names.violation("queue", "a,b")).isEqualTo("queue must not contain ','");
    assertThat(Names.violation("type", "a\0b")).isEqualTo("type must not contain null bytes");
    for (char c : "*?[]{}\\".toCharArray()) {
      assertThat(Names.violation("budget key", "x" + c))
          .isEqualTo("budget key must not contain '" + c + "' (reserved)");
    }
  }

  @Test
  void aCommaIsReportedBeforeANullByteAndANullByteBeforeAReservedCharacter() {
    assertThat(Names.violation("queue", "*\0,")).isEqualTo("queue must not contain ','");
    assertThat(Names.violation("queue", "*\0")).isEqualTo("queue must not contain null bytes");
    assertThat(Names.violation("queue", "a?b*")).isEqualTo("queue must not contain '?' (reserved)");
  }
}

package io.sluice.api.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CompactJsonTest {
  /** The value found at the start of {@code json + after}, or null when it is not compact. */
  private static String value(String json, String after) {
    byte[] bytes = (json + after).getBytes(StandardCharsets.UTF_8);
    int end = CompactJson.end(bytes, 0);
    return end < 0 ? null : new String(bytes, 0, end, StandardCharsets.UTF_8);
  }

  @Test
  void aCompactValueEndsWhereItsEnclosingObjectGoesOn() {
    for (String after : new String[] {",\"q\":1}", "}", "]", " ,\"q\":1}", ""}) {
      assertThat(value("{\"a\":1,\"b\":[true,false,null],\"c\":-0.5}", after))
          .isEqualTo("{\"a\":1,\"b\":[true,false,null],\"c\":-0.5}");
      assertThat(value("[1,[2,[]],{}]", after)).isEqualTo("[1,[2,[]],{}]");
      assertThat(value("\"a string with spaces\\n and \\\" quotes\"", after))
          .isEqualTo("\"a string with spaces\\n and \\\" quotes\"");
      assertThat(value("-12.50", after)).isEqualTo("-12.50");
      assertThat(value("true", after)).isEqualTo("true");
      assertThat(value("null", after)).isEqualTo("null");
      assertThat(value("\"é, {[\"", after)).isEqualTo("\"é, {[\"");
    }
  }

  @Test
  void bracketsAndQuotesInStringsAreText() {
    assertThat(value("{\"k}\":\"]\\\\\",\"e 1e5 \":\"\\\"}\"}", ",")).isEqualTo(
        "{\"k}\":\"]\\\\\",\"e 1e5 \":\"\\\"}\"}");
  }

  @Test
  void whitespaceInsideTheValueIsNotCompact() {
    assertThat(value("{\"a\": 1}", "")).isNull();
    assertThat(value("{\"a\":1,\n\"b\":2}", "")).isNull();
    assertThat(value("[1,\t2]", "")).isNull();
    assertThat(value("{\"a\":\"x\"\r}", "")).isNull();
  }

  @Test
  void numbersWithAnExponentAreNotCompact() {
    assertThat(value("1e5", "}")).isNull();
    assertThat(value("{\"a\":2.5E-3}", "")).isNull();
    assertThat(value("[0e0]", "")).isNull();
  }
}

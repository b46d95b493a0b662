package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NdjsonSplitterTest {

  private final NdjsonSplitter splitter = new NdjsonSplitter();
  private final List<String> lines = new ArrayList<>();
  private final NdjsonSplitter.LineHandler collect =
      (b, s, e) -> lines.add(new String(b, s, e - s, StandardCharsets.UTF_8));

  @Test
  void joinsLinesSplitAcrossChunksAndKeepsHeartbeatsAsEmptyLines() {
    feed("{\"id\":\"a\"}\n\n{\"id\"");
    feed(":\"b\"}");
    assertThat(lines).containsExactly("{\"id\":\"a\"}", "");
    assertThat(splitter.pendingBytes()).isEqualTo("{\"id\":\"b\"}".length());
    feed("\r\n");
    assertThat(lines).containsExactly("{\"id\":\"a\"}", "", "{\"id\":\"b\"}");
    assertThat(splitter.pendingBytes()).isZero();
  }

  @Test
  void growsForLinesLongerThanItsInitialBuffer() {
    String big = "x".repeat(100_000);
    feed(big.substring(0, 60_000));
    feed(big.substring(60_000) + "\n");
    assertThat(lines).containsExactly(big);
  }

  private void feed(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    splitter.feed(b, 0, b.length, collect);
  }
}

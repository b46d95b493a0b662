package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NdjsonFramesTest {

  @Test
  void splitsLinesAndReportsBlankLinesAsHeartbeats() throws IOException {
    assertThat(frames(stream("{\"a\":1}\n\n{\"b\":2}\n"))).containsExactly("{\"a\":1}", "", "{\"b\":2}");
  }

  @Test
  void joinsLinesThatArriveInPieces() throws IOException {
    String text = "{\"id\":\"one\"}\n\n{\"id\":\"two\"}\n{\"id\":\"three\"}\n";
    assertThat(frames(trickle(text, 3)))
        .containsExactly("{\"id\":\"one\"}", "", "{\"id\":\"two\"}", "{\"id\":\"three\"}");
  }

  @Test
  void readsALineLongerThanItsBuffer() throws IOException {
    String big = "{\"text\":\"" + "x".repeat(200_000) + "\"}";
    assertThat(frames(trickle(big + "\n{}\n", 10_000))).containsExactly(big, "{}");
  }

  @Test
  void dropsACutOffLastLine() throws IOException {
    assertThat(frames(stream("{\"a\":1}\n{\"b\":"))).containsExactly("{\"a\":1}");
  }

  private static List<String> frames(InputStream in) throws IOException {
    NdjsonFrames frames = new NdjsonFrames(in);
    List<String> out = new ArrayList<>();
    byte[] frame;
    while ((frame = frames.next()) != null) {
      out.add(new String(frame, StandardCharsets.UTF_8));
    }
    return out;
  }

  private static InputStream stream(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Hands out at most {@code chunk} bytes per read, as a socket may. */
  private static InputStream trickle(String text, int chunk) {
    return new FilterInputStream(stream(text)) {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return super.read(b, off, Math.min(len, chunk));
      }
    };
  }
}

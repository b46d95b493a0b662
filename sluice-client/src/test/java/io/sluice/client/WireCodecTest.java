package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hand-written ack body is byte for byte what data binding writes, in both formats, for ids
 * copied straight and for ids that need escaping.
 */
class WireCodecTest {
  private static final WireCodec CODEC = new WireCodec();

  @Test
  void theAckBodyMatchesTheDataBoundOneInJsonAndMessagePack() {
    List<List<String>> cases = List.of(List.of(), List.of("03fr82s4q2jktvg5p1acpeqfe"),
        List.of("03fr82s4q2jktvg5p1acpeqfe", "03fr82s4q2jktvg5p1acpeqfg", "~ printable ascii!"),
        List.of("a", "quote\"and\\backslash", "tab\tnewline\n", "émoji 🎉", "x".repeat(300)));
    for (WireFormat format : WireFormat.values()) {
      for (List<String> ids : cases) {
        assertThat(CODEC.encodeIds(format, ids))
            .as("%s %s", format, ids)
            .isEqualTo(CODEC.encode(format, new WireBodies.Ids(ids)));
      }
    }
  }
}

package io.sluice.api.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Utf8} against the standard's table of well-formed sequences and the JDK's decoder. */
class Utf8Test {
  /** Bytes around every boundary of the table's second, third and fourth byte ranges. */
  private static final int[] EDGES = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0,
      0xF4, 0xFF};

  @ParameterizedTest
  @ValueSource(strings = {"", "41", "7f", "c280", "dfbf", "e0a080", "ed9fbf", "ee8080", "efbfbf",
      "f0908080", "f09f9880", "f48fbfbf", "41f09f988041"})
  void acceptsWellFormedSequences(String hex) {
    byte[] bytes = HexFormat.of().parseHex(hex);

    assertThat(Utf8.malformedAt(bytes, 0, bytes.length)).isEqualTo(-1);
  }

  @ParameterizedTest
  @CsvSource({
    "c0af, 0", // overlong '/'
    "c1bf, 0",
    "e080af, 0", // overlong 3-byte
    "f08080af, 0", // overlong 4-byte
    "eda080, 0", // U+D800 encoded
    "edbfbf, 0", // U+DFFF encoded
    "f4908080, 0", // U+110000
    "f5808080, 0",
    "ff, 0",
    "80, 0", // stray continuation
    "41e282, 1", // truncated at the end
    "e28241, 0", // truncated before ASCII
    "f09f98, 0",
    "41c2, 1",
    "f09f988080, 4" // a valid emoji, then a stray continuation
  })
  void findsTheFirstIllFormedSequence(String hex, int offset) {
    byte[] bytes = HexFormat.of().parseHex(hex);

    assertThat(Utf8.malformedAt(bytes, 0, bytes.length)).isEqualTo(offset);
  }

  @Test
  void looksOnlyInsideTheRange() {
    byte[] bytes = HexFormat.of().parseHex("c0414243c0");

    assertThat(Utf8.malformedAt(bytes, 1, 4)).isEqualTo(-1);
    assertThat(Utf8.malformedAt(bytes, 1, 5)).isEqualTo(4);
  }

  @Test
  void agreesWithTheJdkDecoderOnEveryLeadFollowedByEdgeBytes() {
    for (int lead = 0x80; lead <= 0xFF; lead++) {
      for (int second : EDGES) {
        assertAgrees(lead, second);
        for (int third : EDGES) {
          assertAgrees(lead, second, third);
          for (int fourth : EDGES) {
            assertAgrees(lead, second, third, fourth);
          }
        }
      }
    }
  }

  private static void assertAgrees(int... values) {
    byte[] bytes = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      bytes[i] = (byte) values[i];
    }
    assertThat(Utf8.malformedAt(bytes, 0, bytes.length) < 0)
        .as("%s", HexFormat.of().formatHex(bytes))
        .isEqualTo(jdkAccepts(bytes));
  }

  private static boolean jdkAccepts(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}

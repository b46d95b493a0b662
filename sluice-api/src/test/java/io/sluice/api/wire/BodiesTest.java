package io.sluice.api.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * {@link Bodies#checked}: JSON and MessagePack bodies must be Unicode text throughout, and a
 * failure names the field that holds the problem.
 */
class BodiesTest {
  private static final byte[] OVERLONG = HexFormat.of().parseHex("c0af");

  /** {@code template} as UTF-8 with each {@code @} replaced by {@code inserted}. */
  static byte[] withBytes(String template, byte[] inserted) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String[] parts = template.split("@", -1);
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        out.writeBytes(inserted);
      }
      out.writeBytes(parts[i].getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }

  private static String jsonError(byte[] body) {
    Throwable thrown = null;
    try {
      Bodies.checked(Format.JSON, body);
    } catch (BodyException e) {
      thrown = e;
    }
    assertThat(thrown).as("rejected: %s", new String(body, StandardCharsets.UTF_8)).isNotNull();
    return thrown.getMessage();
  }

  @Nested
  class Json {
    @ParameterizedTest
    @ValueSource(strings = {
      "{}",
      "{\"a\":\"\\ud83d\\ude00\"}",
      "{\"a\":\"\\uD83D\\uDE00 and \\u00e9\"}",
      "{\"a\":\"\\\\ud800\"}",
      "{\"a\":\"\\\\\\\\\",\"b\":\"\\\"\"}",
      "{\"\uD83D\uDE00\":\"\u00e9\u4e2d\uD83D\uDE00\"}",
      "not json at all, which the parser reports"
    })
    void acceptsUnicodeText(String body) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);

      assertThat(Bodies.checked(Format.JSON, bytes)).isSameAs(bytes);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
      "{\"queue\":\"@\"}|queue",
      "{\"a\":[{\"b\":[\"x\",\"y@\"]}]}|a[0].b[1]",
      "{\"a\":\"x\\\"y\",\"b\":\"\\\"@\"}|b",
      "[\"ok\",{\"k\":\"@\"}]|[1].k"
    })
    void namesTheStringThatHoldsMalformedBytes(String template, String path) {
      assertThat(jsonError(withBytes(template, OVERLONG)))
          .isEqualTo("invalid JSON: malformed UTF-8 in `" + path + "`");
    }

    @Test
    void namesTheObjectWhoseFieldNameIsMalformed() {
      assertThat(jsonError(withBytes("{\"@\":1}", OVERLONG)))
          .isEqualTo("invalid JSON: malformed UTF-8 in a field name");
      assertThat(jsonError(withBytes("{\"a\":[{\"ok\":1,\"x@\":2}]}", OVERLONG)))
          .isEqualTo("invalid JSON: malformed UTF-8 in a field name inside `a[0]`");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
      "{\"a\":\"\\ud800\"}|a",
      "{\"a\":\"\\ud800\\u0041\"}|a",
      "{\"a\":\"\\ud800\\ud800\\udc00\"}|a",
      "{\"a\":\"\\udc00\"}|a",
      "{\"a\":\"\\ud83d\\ude00\",\"b\":[\"\\ude00\\ud83d\"]}|b[0]",
      "{\"a\":\"\\uDBFF\"}|a"
    })
    void rejectsUnpairedSurrogateEscapes(String body, String path) {
      assertThat(jsonError(body.getBytes(StandardCharsets.US_ASCII)))
          .isEqualTo("invalid JSON: unpaired surrogate escape in `" + path + "`");
    }

    @Test
    void namesAFieldNameWithAnUnpairedSurrogateEscape() {
      assertThat(jsonError("{\"p\":{\"\\ud800\":1}}".getBytes(StandardCharsets.US_ASCII)))
          .isEqualTo("invalid JSON: unpaired surrogate escape in a field name inside `p`");
    }

    @Test
    void givesTheByteOffsetWhenNoStringHoldsTheProblem() {
      assertThat(jsonError(withBytes("{\"a\":1}@", OVERLONG)))
          .isEqualTo("invalid JSON: malformed UTF-8 at byte 7");
      assertThat(jsonError(withBytes("{\"a\" 1,\"b\":\"@\"}", OVERLONG)))
          .isEqualTo("invalid JSON: malformed UTF-8 at byte 12");
      assertThat(jsonError(withBytes("\"@\"", OVERLONG)))
          .isEqualTo("invalid JSON: malformed UTF-8 at byte 1");
    }
  }

  @Nested
  class Numbers {
    @Test
    void aDecimalWhoseExponentOverflowsIsInvalidJson() {
      byte[] body = "{\"allocation\":1e9999999999}".getBytes(StandardCharsets.US_ASCII);

      assertThatThrownBy(() -> Bodies.tree(Format.JSON, body))
          .isInstanceOf(BodyException.class)
          .hasMessageStartingWith("invalid JSON: ")
          .hasMessageContaining("1e9999999999");
    }

    @Test
    void aPayloadDecimalWhoseExponentOverflowsIsInvalidJson() {
      byte[] body = "{\"type\":\"t\",\"queue\":\"q\",\"payload\":{\"x\":[1e-9999999999]}}"
          .getBytes(StandardCharsets.US_ASCII);

      assertThatThrownBy(() -> new EnqueueParser(Format.JSON).readOne(body, () -> null))
          .isInstanceOf(BodyException.class)
          .hasMessageStartingWith("invalid JSON: ")
          .hasMessageContaining("1e-9999999999");
    }
  }

  @Nested
  class Msgpack {
    @Test
    void acceptsUnicodeStrings() throws IOException {
      MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
      packer.packMapHeader(1).packString("\uD83D\uDE00").packString("\u00e9\u4e2d");
      byte[] bytes = packer.toByteArray();

      assertThat(Bodies.checked(Format.MSGPACK, bytes)).isSameAs(bytes);
    }

    @Test
    void namesTheStringThatHoldsMalformedBytes() throws IOException {
      MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
      packer.packMapHeader(2).packString("ok").packString("fine");
      packer.packString("a").packArrayHeader(2).packInt(1).packMapHeader(1).packString("b");
      packer.packRawStringHeader(3).writePayload(OVERLONG).writePayload(new byte[] {'x'});

      assertThatThrownBy(() -> Bodies.checked(Format.MSGPACK, packer.toByteArray()))
          .isInstanceOf(BodyException.class)
          .hasMessage("invalid MessagePack: malformed UTF-8 in `a[1].b`");
    }

    @Test
    void namesTheObjectWhoseKeyIsMalformed() throws IOException {
      MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
      packer.packMapHeader(1).packRawStringHeader(2).writePayload(OVERLONG).packInt(1);

      assertThatThrownBy(() -> Bodies.checked(Format.MSGPACK, packer.toByteArray()))
          .isInstanceOf(BodyException.class)
          .hasMessage("invalid MessagePack: malformed UTF-8 in a field name");
    }

    @Test
    void givesTheByteOffsetOfAMalformedDocumentString() throws IOException {
      MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
      packer.packRawStringHeader(2).writePayload(OVERLONG);

      assertThatThrownBy(() -> Bodies.checked(Format.MSGPACK, packer.toByteArray()))
          .isInstanceOf(BodyException.class)
          .hasMessage("invalid MessagePack: malformed UTF-8 at byte 1");
    }

    @Test
    void refusesAStringLongerThanTheDocument() {
      byte[] truncated = HexFormat.of().parseHex("81a1" + "61" + "a5" + "6162");

      assertThatThrownBy(() -> Bodies.checked(Format.MSGPACK, truncated))
          .isInstanceOf(BodyException.class)
          .hasMessageStartingWith("invalid MessagePack: ");
    }
  }
}

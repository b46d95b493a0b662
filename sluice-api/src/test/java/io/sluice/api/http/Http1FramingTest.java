package io.sluice.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class Http1FramingTest {
  private static final long LIMIT = 100;

  private static ByteBuf bytes(String text) {
    return Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  /** Feeds all of {@code text} at once; returns where the framing stopped. */
  private static int feed(Http1Framing framing, String text) {
    ByteBuf buf = bytes(text);
    return framing.feed(buf, 0, buf.writerIndex());
  }

  private static final String KEEP_ALIVE_STREAM = "\r\n"
      + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
      + "POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
      + "POST /jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n"
      + "3;name=value\r\nabc\r\n0a\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n"
      + "GET /version HTTP/1.0\r\n\r\n";

  @Nested
  class Accepting {
    @Test
    void followsKeepAliveRequestsOfEveryFraming() {
      Http1Framing framing = new Http1Framing(LIMIT);

      assertThat(feed(framing, KEEP_ALIVE_STREAM)).isEqualTo(KEEP_ALIVE_STREAM.length());
      assertThat(framing.refusal()).isNull();
      assertThat(framing.headsCompleted()).isEqualTo(4);
      assertThat(framing.phase()).isEqualTo(Http1Framing.Phase.BETWEEN);
    }

    @Test
    void sameResultWhateverHowTheBytesArriveSplit() {
      Http1Framing framing = new Http1Framing(LIMIT);
      ByteBuf buf = bytes(KEEP_ALIVE_STREAM);

      for (int i = 0; i < buf.writerIndex(); i++) {
        assertThat(framing.feed(buf, i, i + 1)).isEqualTo(i + 1);
      }

      assertThat(framing.headsCompleted()).isEqualTo(4);
      assertThat(framing.phase()).isEqualTo(Http1Framing.Phase.BETWEEN);
    }

    @Test
    void tellsWhetherTheClientIsInAHeadOrABody() {
      Http1Framing framing = new Http1Framing(LIMIT);

      feed(framing, "POST /jobs HTTP/1.1\r\nContent-Le");
      assertThat(framing.phase()).isEqualTo(Http1Framing.Phase.HEAD);
      assertThat(framing.headsCompleted()).isZero();
      feed(framing, "ngth: 4\r\n\r\nab");
      assertThat(framing.phase()).isEqualTo(Http1Framing.Phase.BODY);
      assertThat(framing.headsCompleted()).isOne();
      feed(framing, "cd");
      assertThat(framing.phase()).isEqualTo(Http1Framing.Phase.BETWEEN);
    }

    @Test
    void acceptsBodiesOfExactlyTheLimit() {
      Http1Framing framing = new Http1Framing(LIMIT);
      String fixed = "POST / HTTP/1.1\r\nContent-Length: 100\r\n\r\n" + "a".repeat(100);
      String chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "32\r\n" + "a".repeat(50) + "\r\n32\r\n" + "b".repeat(50) + "\r\n0\r\n\r\n";

      feed(framing, fixed + chunked);

      assertThat(framing.refusal()).isNull();
      assertThat(framing.headsCompleted()).isEqualTo(2);
    }

    @Test
    void equalRepeatedContentLengthsAreOneLength() {
      Http1Framing framing = new Http1Framing(LIMIT);

      feed(framing, "POST / HTTP/1.1\r\nContent-Length: 3, 3\r\nContent-Length: 003\r\n\r\nabc");

      assertThat(framing.refusal()).isNull();
      assertThat(framing.phase()).isEqualTo(Http1Framing.Phase.BETWEEN);
    }
  }

  @Nested
  class RefusingAHead {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
      "X-A: a\\r\\n b|400|obsolete line folding in header fields is not allowed",
      "X-A: a\\r\\n\\tb|400|obsolete line folding in header fields is not allowed",
      "Content-Length: 3\\r\\nTransfer-Encoding: chunked|400|"
          + "Content-Length and Transfer-Encoding must not both be present",
      "Transfer-Encoding: xchunked|501|unsupported transfer coding: xchunked",
      "Transfer-Encoding: gzip, chunked|501|unsupported transfer coding: gzip, chunked",
      "Transfer-Encoding: gzip\\r\\nTransfer-Encoding: chunked|501|"
          + "unsupported transfer coding: gzip,chunked",
      "Content-Length: abc|400|invalid Content-Length: abc",
      "Content-Length: 3\\r\\nContent-Length: 4|400|invalid Content-Length: 3,4",
      "Content-Length: -1|400|invalid Content-Length: -1",
      "Content-Length: 101|413|request body exceeds the limit of 100 bytes",
      "Content-Length: 99999999999999999999999|413|request body exceeds the limit of 100 bytes"
    })
    void beforeItReachesTheDecoder(String headers, int status, String message) {
      Http1Framing framing = new Http1Framing(LIMIT);
      String head = "POST /jobs HTTP/1.1\r\nHost: x\r\n"
          + headers.replace("\\r\\n", "\r\n").replace("\\t", "\t") + "\r\n\r\n";

      int stop = feed(framing, head + "body");

      assertThat(framing.refusal()).isEqualTo(new HttpError(status, message, null));
      assertThat(framing.refusedInBody()).isFalse();
      assertThat(stop).as("the head's last byte is held back").isLessThan(head.length());
      assertThat(framing.headsCompleted()).isZero();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
      "GET / HTTP/2.0|505|HTTP version not supported: HTTP/2.0",
      "GET / HTTP/1.3|505|HTTP version not supported: HTTP/1.3",
      "GET / FOO/1.1|400|malformed request line",
      "GARBAGE|400|malformed request line"
    })
    void withAnotherVersionThanHttp1(String requestLine, int status, String message) {
      Http1Framing framing = new Http1Framing(LIMIT);

      feed(framing, requestLine + "\r\nHost: x\r\n\r\n");

      assertThat(framing.refusal()).isEqualTo(new HttpError(status, message, null));
    }

    @Test
    void consumesNothingOnceRefused() {
      Http1Framing framing = new Http1Framing(LIMIT);
      feed(framing, "GET / HTTP/2.0\r\n\r\n");

      assertThat(feed(framing, "GET / HTTP/1.1\r\n\r\n")).isZero();
      assertThat(framing.headsCompleted()).isZero();
    }
  }

  @Nested
  class RefusingABody {
    private Http1Framing chunked(String body) {
      Http1Framing framing = new Http1Framing(LIMIT);
      String head = "POST /jobs HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
      int stop = feed(framing, head + body);
      assertThat(framing.headsCompleted()).isOne();
      assertThat(stop).isGreaterThanOrEqualTo(head.length());
      return framing;
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
      "zz\\r\\nab\\r\\n0\\r\\n\\r\\n|malformed chunked body: invalid chunk size",
      "\\r\\n|malformed chunked body: invalid chunk size",
      "2\\nab|malformed chunked body: invalid chunk size",
      "2x\\r\\nab|malformed chunked body: invalid chunk size",
      "2\\r\\nabc\\r\\n|malformed chunked body: chunk data not followed by CRLF",
      "2;ext\\n|malformed chunked body: invalid chunk extension",
      "0\\r\\n\\n|malformed chunked body: invalid trailer section"
    })
    void withMalformedChunks(String body, String message) {
      Http1Framing framing = chunked(body.replace("\\r", "\r").replace("\\n", "\n"));

      assertThat(framing.refusal()).isEqualTo(new HttpError(400, message, null));
      assertThat(framing.refusedInBody()).isTrue();
    }

    @Test
    void asSoonAsAChunkSizeCrossesTheLimit() {
      String first = "3c\r\n" + "a".repeat(60) + "\r\n";
      Http1Framing framing = new Http1Framing(LIMIT);
      String head = "POST /jobs HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";

      int stop = feed(framing, head + first + "29\r\n" + "b".repeat(41) + "\r\n0\r\n\r\n");

      assertThat(framing.refusal().status()).isEqualTo(413);
      assertThat(framing.refusedInBody()).isTrue();
      assertThat(stop).as("refused on the second digit of 0x29, before its data")
          .isEqualTo(head.length() + first.length() + 1);
    }

    @Test
    void withAChunkSizeTooLargeToParse() {
      Http1Framing framing = chunked("ffffffffffffffffffffffff\r\n");

      assertThat(framing.refusal().status()).isEqualTo(413);
    }
  }
}

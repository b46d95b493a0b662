package io.sluice.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DirectHeadTest {
  private static final String PLAIN = "POST /jobs HTTP/1.1\r\nHost: localhost:7890\r\n"
      + "Content-Type: application/json\r\nContent-Length: 12\r\nConnection: keep-alive\r\n\r\n";

  private static DirectHead parse(String head) {
    ByteBuf buf = Unpooled.copiedBuffer("ignored" + head + "{\"after\":1}", StandardCharsets.ISO_8859_1);
    return DirectHead.parse(buf, "ignored".length(), "ignored".length() + head.length());
  }

  @Test
  void readsTheRequestLineAndTheHeadersAnExchangeUses() {
    DirectHead head = parse(PLAIN);

    assertThat(head).isNotNull();
    assertThat(head.method()).isEqualTo(HttpMethod.POST);
    assertThat(head.path()).isEqualTo("/jobs");
    assertThat(head.query()).isNull();
    assertThat(head.contentType()).isEqualTo("application/json");
    assertThat(head.accept()).isNull();
  }

  @Test
  void splitsTheQueryOffAndKeepsBothUndecoded() {
    DirectHead head = parse("POST /jobs/a%2Fb/success?x=%20y HTTP/1.1\r\nhost: h\r\n"
        + "ACCEPT:  application/msgpack \t\r\ncontent-TYPE:application/json\r\n\r\n");

    assertThat(head.path()).isEqualTo("/jobs/a%2Fb/success");
    assertThat(head.query()).isEqualTo("x=%20y");
    assertThat(head.accept()).as("optional whitespace trimmed").isEqualTo("application/msgpack");
    assertThat(head.contentType()).isEqualTo("application/json");
  }

  @Test
  void blankLinesBeforeTheRequestAreSkippedLikeTheDecoderDoes() {
    assertThat(parse("\r\n\r\nPOST /jobs HTTP/1.1\r\nHost: h\r\n\r\n")).isNotNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      // Only HTTP/1.1, in origin form, with one Host.
      "POST /jobs HTTP/1.0\r\nHost: h\r\n\r\n",
      "POST /jobs HTTP/1.1\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n",
      "POST http://h/jobs HTTP/1.1\r\nHost: h\r\n\r\n",
      "POST * HTTP/1.1\r\nHost: h\r\n\r\n",
      "POST /jobs#frag HTTP/1.1\r\nHost: h\r\n\r\n",
      "POST  /jobs HTTP/1.1\r\nHost: h\r\n\r\n",
      "POST /jobs HTTP/1.1 \r\nHost: h\r\n\r\n",
      "PO(ST /jobs HTTP/1.1\r\nHost: h\r\n\r\n",
      // Headers that ask for more than a plain exchange.
      "POST /jobs HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nUpgrade: h2c\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade\r\n\r\n",
      // What an exchange reads must be unambiguous.
      "POST /jobs HTTP/1.1\r\nHost: h\r\nAccept: a/b\r\nAccept: c/d\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nContent-Type: a/b\r\nContent-Type: a/b\r\n\r\n",
      // Anything malformed is Vert.x's to answer.
      "POST /jobs HTTP/1.1\r\nHost: h\r\nNo colon here\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\n: empty name\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nX-Bin: caf\u00e9\r\n\r\n",
      "POST /caf\u00e9 HTTP/1.1\r\nHost: h\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nX-Ctl: a\u0001b\r\n\r\n",
      // The decoder refuses these, and the framing does not: bare line feeds, a byte above
      // ASCII before the request, a tab in the target, a repeated or listed Content-Length.
      "POST /jobs HTTP/1.1\nHost: h\n\n",
      "POST /jobs HTTP/1.1\r\nHost: h\nX: y\r\n\r\n",
      "\u00a0POST /jobs HTTP/1.1\r\nHost: h\r\n\r\n",
      "POST /jobs/a\tb/success HTTP/1.1\r\nHost: h\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\n",
      "POST /jobs HTTP/1.1\r\nHost: h\r\n"})
  void leavesEveryOtherHeadToVertx(String head) {
    assertThat(parse(head)).isNull();
  }
}

package io.sluice.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Fed one byte at a time or in larger pieces (within which it skips a body's bytes in one step),
 * the framing must reach the same verdicts wherever the pieces are cut, on streams of valid and
 * invalid requests alike.
 */
class Http1FramingSplitPropertyTest {
  private static final long LIMIT = 64;

  /** Pieces of request streams, valid or not, including lines the framing skips. */
  private static final List<String> PIECES = List.of(
      "GET /health HTTP/1.1\r\n", "POST /jobs HTTP/1.1\r\n", "GET /x HTTP/1.0\r\n",
      "GET /x HTTP/2.0\r\n", "GET /x HTTP/1.1\n",
      "Host: 127.0.0.1:7890\r\n", "User-Agent: node\r\n", "Accept: */*\r\n",
      "X-Long: " + "v".repeat(300) + "\r\n", "X-Bare-LF: a\n", " folded\r\n",
      "Content-Length: 5\r\n", "content-length: 5, 5\r\n", "Content-Length: 70\r\n",
      "Content-Length: x\r\n", "Transfer-Encoding: chunked\r\n", "Transfer-Encoding: gzip\r\n",
      "\r\n", "\n", "hello", "3\r\nabc\r\n", "3;ext=1\r\nabc\r\n", "0\r\n",
      "X-Trailer: t\r\n", "zz\r\n", "0\r\n\r\n");

  @Property(tries = 3000)
  void reachesTheSameVerdictsWhateverThePieces(@ForAll("streams") String stream,
      @ForAll("cuts") List<Integer> cuts) {
    Verdict byteByByte = feed(stream, List.of(1));
    Verdict inPieces = feed(stream, cuts);

    assertThat(inPieces).isEqualTo(byteByByte);
  }

  @Provide
  Arbitrary<String> streams() {
    return Arbitraries.of(PIECES).list().ofMinSize(1).ofMaxSize(14)
        .map(pieces -> String.join("", pieces));
  }

  @Provide
  Arbitrary<List<Integer>> cuts() {
    return Arbitraries.integers().between(1, 400).list().ofMinSize(1).ofMaxSize(6);
  }

  /** What the framing concluded: where it stopped, what it refused, how far it got. */
  private record Verdict(int stoppedAt, String refusal, boolean inBody, long heads,
      Http1Framing.Phase phase) {}

  /** Feeds {@code stream} in pieces of the given sizes, cycling through them. */
  private static Verdict feed(String stream, List<Integer> sizes) {
    ByteBuf buf = Unpooled.wrappedBuffer(stream.getBytes(StandardCharsets.ISO_8859_1));
    Http1Framing framing = new Http1Framing(LIMIT);
    int at = 0;
    int piece = 0;
    while (at < buf.writerIndex()) {
      int to = Math.min(buf.writerIndex(), at + sizes.get(piece++ % sizes.size()));
      int stopped = framing.feed(buf, at, to);
      if (stopped < to) {
        at = stopped;
        break;
      }
      at = to;
    }
    HttpError refusal = framing.refusal();
    return new Verdict(at, refusal == null ? null : refusal.status() + " " + refusal.message(),
        framing.refusedInBody(), framing.headsCompleted(), framing.phase());
  }
}

package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.HttpLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HttpLimits} against a server held to small ones, over raw sockets: bodies above the
 * limit are refused before they are read, slow heads and stalled bodies are cut off, idle
 * connections are closed but take streams never are, and each listener admits only so many
 * connections.
 */
class HttpLimitsHttpTest {
  private static final int MAX_BODY = 1 << 20;
  private static final long HEADER_TIMEOUT_MS = 400;
  private static final long IDLE_TIMEOUT_MS = 1000;
  private static final long BODY_TIMEOUT_MS = 400;
  private static final HttpLimits LIMITS = new HttpLimits(MAX_BODY, HEADER_TIMEOUT_MS,
      IDLE_TIMEOUT_MS, BODY_TIMEOUT_MS, HttpLimits.DEFAULT_MAX_CONNECTIONS);
  /** Long enough for any timeout above to fire on a loaded machine. */
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(3);
  /** Short enough for none of them to fire. */
  private static final Duration STILL_OPEN = Duration.ofMillis(200);

  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass(LIMITS);

  private static String enqueueHead(String framing) {
    return "POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + framing
        + "\r\n\r\n";
  }

  /** An enqueue body of exactly {@code size} bytes. */
  private static byte[] jobOfSize(String queue, int size) {
    String shell = ServerFixture.job(queue, "sized").put("payload", "").toString();
    String padded = shell.replace("\"payload\":\"\"",
        "\"payload\":\"" + "a".repeat(size - shell.length()) + "\"");
    byte[] bytes = padded.getBytes(StandardCharsets.US_ASCII);
    assertThat(bytes).hasSize(size);
    return bytes;
  }

  @Nested
  class BodySize {
    @Test
    void aDeclaredLengthAboveTheLimitIs413BeforeAnyBodyIsSent() throws Exception {
      try (RawHttp connection = RawHttp.connect(server.port())) {
        long sentAt = System.nanoTime();
        RawHttp.Response response =
            connection.send(enqueueHead("Content-Length: " + (1L << 30))).read();

        assertThat(Duration.ofNanos(System.nanoTime() - sentAt)).isLessThan(Duration.ofSeconds(1));
        assertThat(response.status()).isEqualTo(413);
        assertThat(response.error()).isEqualTo("request body exceeds the limit of 1048576 bytes");
        assertThat(connection.closedWithin(CLOSE_TIMEOUT)).isTrue();
      }
    }

    @Test
    void aBodyOfExactlyTheLimitIsAcceptedAndOneByteMoreIsNot() throws Exception {
      String queue = ServerFixture.uniqueName("limit");
      byte[] atLimit = jobOfSize(queue, MAX_BODY);
      byte[] above = jobOfSize(queue, MAX_BODY + 1);
      try (RawHttp connection = RawHttp.connect(server.port())) {
        connection.send(enqueueHead("Content-Length: " + atLimit.length)).send(atLimit);
        assertThat(connection.read().status()).isEqualTo(201);

        connection.send(enqueueHead("Content-Length: " + above.length)).send(above);
        assertThat(connection.read().status()).isEqualTo(413);
      }
    }

    @Test
    void aChunkedBodyCrossingTheLimitIs413AndTheConnectionCloses() throws Exception {
      String queue = ServerFixture.uniqueName("chunked");
      try (RawHttp connection = RawHttp.connect(server.port())) {
        connection.send(enqueueHead("Transfer-Encoding: chunked"));
        String json = ServerFixture.job(queue, "big").toString();
        byte[] chunk = ("10000\r\n" + json + " ".repeat(0x10000 - json.length()) + "\r\n")
            .getBytes(StandardCharsets.US_ASCII);
        // Four times the limit, unless the server stops reading first.
        CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
          try {
            for (int i = 0; i < 4 * MAX_BODY / 0x10000; i++) {
              connection.send(chunk);
            }
          } catch (IOException e) {
            // The server closed the connection: what this test expects.
          }
        });

        RawHttp.Response response = connection.read();

        assertThat(response.status()).isEqualTo(413);
        assertThat(response.error()).isEqualTo("request body exceeds the limit of 1048576 bytes");
        sender.get(10, TimeUnit.SECONDS);
        assertThat(connection.closedWithin(CLOSE_TIMEOUT)).isTrue();
      }
      server.assertNothingReady(queue);
    }
  }

  @Nested
  class Timeouts {
    @Test
    void aHeadSentTooSlowlyIsDropped() throws Exception {
      byte[] head = ("GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: " + "a".repeat(40) + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII);
      try (RawHttp connection = RawHttp.connect(server.port())) {
        long startedAt = System.nanoTime();
        int sent = 0;
        try {
          // One byte every 50 ms: each well within the timeout, the whole head not.
          for (; sent < head.length; sent++) {
            connection.send(new byte[] {head[sent]});
            Thread.sleep(50);
          }
        } catch (IOException e) {
          // Reset by the server.
        }

        assertThat(connection.closedWithin(CLOSE_TIMEOUT)).as("dropped, not answered").isTrue();
        assertThat(sent).as("bytes sent before the drop").isLessThan(head.length);
        assertThat(Duration.ofNanos(System.nanoTime() - startedAt))
            .isLessThan(Duration.ofMillis(HEADER_TIMEOUT_MS).plus(CLOSE_TIMEOUT));
      }
    }

    @Test
    void aKeepAliveConnectionWithNoRequestIsClosed() throws Exception {
      try (RawHttp connection = RawHttp.connect(server.port())) {
        assertThat(connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").read().status())
            .isEqualTo(200);

        assertThat(connection.closedWithin(STILL_OPEN)).isFalse();
        assertThat(connection.closedWithin(CLOSE_TIMEOUT)).isTrue();
      }
    }

    @Test
    void aConnectionThatNeverSendsAByteIsClosed() throws Exception {
      try (RawHttp connection = RawHttp.connect(server.port())) {
        assertThat(connection.closedWithin(STILL_OPEN)).isFalse();
        assertThat(connection.closedWithin(CLOSE_TIMEOUT)).isTrue();
      }
    }

    @Test
    void aStalledBodyIs408() throws Exception {
      try (RawHttp connection = RawHttp.connect(server.port())) {
        RawHttp.Response response = connection
            .send(enqueueHead("Content-Length: 100") + "{\"queue\":").read();

        assertThat(response.status()).isEqualTo(408);
        assertThat(response.error())
            .isEqualTo("request body timed out: nothing received for 400 ms");
        assertThat(connection.closedWithin(CLOSE_TIMEOUT)).isTrue();
      }
    }

    @Test
    void aSlowBodyThatKeepsComingIsAccepted() throws Exception {
      byte[] body = ServerFixture.job(ServerFixture.uniqueName("slow"), "slow").toString()
          .getBytes(StandardCharsets.US_ASCII);
      try (RawHttp connection = RawHttp.connect(server.port())) {
        connection.send(enqueueHead("Content-Length: " + body.length));
        // Six parts 100 ms apart: longer than the body timeout in all, never silent that long.
        int part = body.length / 6 + 1;
        for (int from = 0; from < body.length; from += part) {
          Thread.sleep(100);
          connection.send(Arrays.copyOfRange(body, from,
              Math.min(body.length, from + part)));
        }

        assertThat(connection.read().status()).isEqualTo(201);
      }
    }

    @Test
    void aTakeStreamIsNeverIdleWhileAKeepAliveConnectionBesideItIs() throws Exception {
      String queue = ServerFixture.uniqueName("idle-take");
      try (RawHttp take = RawHttp.connect(server.port());
          RawHttp idle = RawHttp.connect(server.port())) {
        take.send("GET /jobs/take?queue=" + queue + " HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(take.readHead().status()).isEqualTo(200);
        assertThat(idle.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").read().status())
            .isEqualTo(200);

        // Heartbeats come every 200 ms; read them for three idle timeouts.
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * IDLE_TIMEOUT_MS);
        int heartbeats = 0;
        while (System.nanoTime() < until) {
          assertThat(take.readChunk()).containsExactly((byte) '\n');
          heartbeats++;
        }

        assertThat(heartbeats).isGreaterThanOrEqualTo(3);
        assertThat(idle.closedWithin(STILL_OPEN)).as("the idle connection").isTrue();
        String id = server.enqueueId(queue);
        byte[] line = take.readChunk();
        while (line.length == 1) {
          line = take.readChunk();
        }
        assertThat(ServerFixture.id(ServerFixture.JSON.readTree(line))).isEqualTo(id);
      }
    }
  }

  @Test
  void aListenerClosesConnectionsBeyondItsLimitAtOnce(@TempDir Path dir) throws Exception {
    HttpLimits fiveConnections = new HttpLimits(MAX_BODY, HEADER_TIMEOUT_MS, 60_000,
        BODY_TIMEOUT_MS, 5);
    List<RawHttp> open = new ArrayList<>();
    try (ServerFixture limited = ServerFixture.start(dir, fiveConnections)) {
      for (int i = 0; i < 5; i++) {
        RawHttp connection = RawHttp.connect(limited.port());
        open.add(connection);
        assertThat(connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").read().status())
            .isEqualTo(200);
      }

      try (RawHttp sixth = RawHttp.connect(limited.port())) {
        assertThat(sixth.closedWithin(CLOSE_TIMEOUT)).isTrue();
      }
      open.remove(0).close();
      ServerFixture.poll(() -> served(limited.port()), served -> served, "a connection again");
    } finally {
      for (RawHttp connection : open) {
        connection.close();
      }
    }
  }

  private static boolean served(int port) {
    try (RawHttp connection = RawHttp.connect(port)) {
      return connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").read().status() == 200;
    } catch (IOException e) {
      return false;
    }
  }

  @Nested
  class Http2 {
    @Test
    void aConnectionWithNoOpenStreamIsClosed() throws Exception {
      try (RawH2Connection connection = new RawH2Connection(server.port())) {
        assertThat(connection.request("GET", "/health").status()).isEqualTo("200");

        assertThat(connection.closedWithin(STILL_OPEN)).isFalse();
        assertThat(connection.closedWithin(CLOSE_TIMEOUT)).isTrue();
      }
    }

    @Test
    void aDeclaredLengthAboveTheLimitIs413() throws Exception {
      try (RawH2Connection connection = new RawH2Connection(server.port())) {
        RawH2Connection.Exchange exchange =
            connection.requestDeclaring("POST", "/jobs", MAX_BODY + 1);

        assertThat(exchange.status()).isEqualTo("413");
        assertThat(ServerFixture.JSON.readTree(exchange.body()).get("error").textValue())
            .isEqualTo("request body exceeds the limit of 1048576 bytes");
      }
    }
  }
}

package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 8, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class Http1ConnectionTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(3);
  private static final SSLSocketFactory DEFAULT_TLS =
      (SSLSocketFactory) SSLSocketFactory.getDefault();
  private static final String JSON = "application/json";

  private FakeHttpServer server;
  private Http1Connection connection;

  @AfterEach
  void tearDown() {
    if (connection != null) {
      connection.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private Http1Connection open(String path) throws IOException {
    connection = Http1Connection.open(URI.create(server.url() + path), TIMEOUT, DEFAULT_TLS);
    return connection;
  }

  private static String ok(String body) {
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
  }

  private static String text(byte[] body) {
    return new String(body, StandardCharsets.UTF_8);
  }

  // --- What goes on the wire ---

  @Test
  void sendsRequestLineAndHeadersUnderTheBasePath() throws Exception {
    server = FakeHttpServer.responding(request -> ok("{}"));
    byte[] body = "{\"ids\":[\"a\",\"b\"]}".getBytes(StandardCharsets.UTF_8);

    open("/prefix").exchange("POST", "/jobs/success", JSON, "application/x-test", body, TIMEOUT);

    FakeHttpServer.Request request = server.takeRequest(TIMEOUT);
    assertThat(request.line()).isEqualTo("POST /prefix/jobs/success HTTP/1.1");
    assertThat(request.header("Host")).isEqualTo("127.0.0.1:" + server.port());
    assertThat(request.header("Accept")).isEqualTo(JSON);
    assertThat(request.header("Content-Type")).isEqualTo("application/x-test");
    assertThat(request.header("Content-Length")).isEqualTo(Integer.toString(body.length));
    assertThat(request.body()).isEqualTo(body);
    assertThat(request.header("Worker-Id")).isNull();
  }

  @Test
  void trailingSlashOfTheBasePathIsNotDoubled() throws Exception {
    server = FakeHttpServer.responding(request -> ok("{}"));

    open("/prefix/").exchange("GET", "/health", JSON, null, null, TIMEOUT);

    assertThat(server.takeRequest(TIMEOUT).line()).isEqualTo("GET /prefix/health HTTP/1.1");
  }

  @Test
  void withoutABasePathTheTargetIsSentAsIs() throws Exception {
    server = FakeHttpServer.responding(request -> ok("{}"));

    open("").exchange("GET", "/jobs/take?queue=a%2Cb&prefetch=1", JSON, null, null, TIMEOUT);

    assertThat(server.takeRequest(TIMEOUT).line())
        .isEqualTo("GET /jobs/take?queue=a%2Cb&prefetch=1 HTTP/1.1");
  }

  @Test
  void requestWithoutBodySendsNoContentHeaders() throws Exception {
    server = FakeHttpServer.responding(request -> ok("{}"));

    open("/p").exchange("DELETE", "/jobs/x", JSON, JSON, null, TIMEOUT);

    FakeHttpServer.Request request = server.takeRequest(TIMEOUT);
    assertThat(request.line()).isEqualTo("DELETE /p/jobs/x HTTP/1.1");
    assertThat(request.header("Content-Type")).isNull();
    assertThat(request.header("Content-Length")).isNull();
    assertThat(request.header("Accept")).isEqualTo(JSON);
  }

  @Test
  void openStreamSendsAGetWithWorkerId() throws Exception {
    server = FakeHttpServer.responding(request -> ok("{}"));

    Http1Connection.Head head = open("/prefix")
        .openStream("/jobs/take?prefetch=4", "application/x-ndjson", "worker-7", TIMEOUT);

    FakeHttpServer.Request request = server.takeRequest(TIMEOUT);
    assertThat(request.line()).isEqualTo("GET /prefix/jobs/take?prefetch=4 HTTP/1.1");
    assertThat(request.header("Host")).isEqualTo("127.0.0.1:" + server.port());
    assertThat(request.header("Accept")).isEqualTo("application/x-ndjson");
    assertThat(request.header("Worker-Id")).isEqualTo("worker-7");
    assertThat(request.header("Content-Length")).isNull();
    assertThat(request.header("Content-Type")).isNull();
    assertThat(head.status()).isEqualTo(200);
    assertThat(head.header("content-type")).isEqualTo(JSON);
  }

  @Test
  void openStreamWithoutWorkerIdSendsNoWorkerIdHeader() throws Exception {
    server = FakeHttpServer.responding(request -> ok("{}"));

    open("").openStream("/jobs/take", "application/x-ndjson", null, TIMEOUT);

    assertThat(server.takeRequest(TIMEOUT).headerLines())
        .noneMatch(line -> line.toLowerCase().startsWith("worker-id"));
  }

  @Test
  void workerIdWithALineBreakIsRefusedBeforeAnythingIsSent() throws Exception {
    server = FakeHttpServer.responding(request -> ok("{}"));
    Http1Connection conn = open("");

    assertThatThrownBy(() -> conn.openStream("/jobs/take", "application/x-ndjson",
        "w\r\nX-Injected: 1", TIMEOUT)).isInstanceOf(IllegalArgumentException.class);

    // Nothing of the refused request reached the server: the next request is the first it reads.
    conn.exchange("GET", "/health", JSON, null, null, TIMEOUT);
    FakeHttpServer.Request first = server.takeRequest(TIMEOUT);
    assertThat(first.line()).isEqualTo("GET /health HTTP/1.1");
    assertThat(first.header("X-Injected")).isNull();
  }

  // --- Reading responses ---

  @Test
  void readsAContentLengthBody() throws Exception {
    server = FakeHttpServer.responding(request -> ok("{\"status\":\"ok\"}"));
    Http1Connection conn = open("");

    HttpTransport.Reply reply = conn.exchange("GET", "/health", JSON, null, null, TIMEOUT);

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo(JSON);
    assertThat(text(reply.body())).isEqualTo("{\"status\":\"ok\"}");
    assertThat(conn.reusable()).isTrue();
  }

  @Test
  void readsAChunkedBody() throws Exception {
    server = FakeHttpServer.responding(request -> "HTTP/1.1 200 OK\r\n"
        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "4\r\n{\"a\"\r\n" + "3;ext=1\r\n:12\r\n" + "1\r\n}\r\n" + "0\r\n\r\n");
    Http1Connection conn = open("");

    HttpTransport.Reply reply = conn.exchange("GET", "/x", JSON, null, null, TIMEOUT);

    assertThat(reply.status()).isEqualTo(200);
    assertThat(text(reply.body())).isEqualTo("{\"a\":12}");
    assertThat(conn.reusable()).isTrue();
    // The chunked body was read to its exact end: the next exchange on the socket is intact.
    HttpTransport.Reply second = conn.exchange("GET", "/x", JSON, null, null, TIMEOUT);
    assertThat(text(second.body())).isEqualTo("{\"a\":12}");
    assertThat(server.connections()).isEqualTo(1);
  }

  @Test
  void twoExchangesShareOneSocket() throws Exception {
    int[] served = {0};
    server = FakeHttpServer.responding(request -> ok("{\"n\":" + (++served[0]) + "}"));
    Http1Connection conn = open("/base");

    HttpTransport.Reply first = conn.exchange("POST", "/one", JSON, JSON,
        "[1]".getBytes(StandardCharsets.UTF_8), TIMEOUT);
    HttpTransport.Reply second = conn.exchange("POST", "/two", JSON, JSON,
        "[2]".getBytes(StandardCharsets.UTF_8), TIMEOUT);

    assertThat(text(first.body())).isEqualTo("{\"n\":1}");
    assertThat(text(second.body())).isEqualTo("{\"n\":2}");
    assertThat(server.connections()).isEqualTo(1);
    List<FakeHttpServer.Request> requests = server.requests();
    assertThat(requests).extracting(FakeHttpServer.Request::line)
        .containsExactly("POST /base/one HTTP/1.1", "POST /base/two HTTP/1.1");
    assertThat(requests).extracting(FakeHttpServer.Request::connection).containsExactly(0, 0);
    assertThat(requests).extracting(FakeHttpServer.Request::bodyText).containsExactly("[1]", "[2]");
    assertThat(conn.reusable()).isTrue();
  }

  @Test
  void aSizedBodyIsReadExactlySoTheNextResponseStaysIntact() throws Exception {
    // Both responses arrive in one write after the first request; the first must not eat the
    // second's bytes.
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write(ok("first") + ok("second"));
      conn.readRequest();
      conn.awaitClientClose(Duration.ofSeconds(5));
    });
    Http1Connection conn = open("");

    HttpTransport.Reply first = conn.exchange("GET", "/a", JSON, null, null, TIMEOUT);
    HttpTransport.Reply second = conn.exchange("GET", "/b", JSON, null, null, TIMEOUT);

    assertThat(text(first.body())).isEqualTo("first");
    assertThat(text(second.body())).isEqualTo("second");
  }

  @Test
  void connectionCloseResponseIsNotReusable() throws Exception {
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok");
      conn.awaitClientClose(Duration.ofSeconds(5));
    });
    Http1Connection conn = open("");

    HttpTransport.Reply reply = conn.exchange("GET", "/x", JSON, null, null, TIMEOUT);

    assertThat(text(reply.body())).isEqualTo("ok");
    assertThat(conn.reusable()).isFalse();
  }

  @Test
  void bodyUntilCloseIsReadToTheEndAndNotReusable() throws Exception {
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it");
      conn.close();
    });
    Http1Connection conn = open("");

    HttpTransport.Reply reply = conn.exchange("GET", "/x", JSON, null, null, TIMEOUT);

    assertThat(text(reply.body())).isEqualTo("all of it");
    assertThat(conn.reusable()).isFalse();
  }

  @Test
  void interimContinueResponsesAreSkipped() throws Exception {
    server = FakeHttpServer.responding(request -> "HTTP/1.1 100 Continue\r\n\r\n"
        + "HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"
        + "HTTP/1.1 201 Created\r\nContent-Length: 7\r\nX-Final: yes\r\n\r\ncreated");
    Http1Connection conn = open("");

    HttpTransport.Reply reply = conn.exchange("POST", "/jobs", JSON, JSON,
        "{}".getBytes(StandardCharsets.UTF_8), TIMEOUT);

    assertThat(reply.status()).isEqualTo(201);
    assertThat(text(reply.body())).isEqualTo("created");
    assertThat(conn.reusable()).isTrue();
  }

  @Test
  void interimResponseBeforeAStreamHeadIsSkipped() throws Exception {
    server = FakeHttpServer.responding(request -> "HTTP/1.1 100 Continue\r\n\r\n"
        + "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nContent-Length: 0\r\n\r\n");

    Http1Connection.Head head =
        open("").openStream("/jobs/take", "application/x-ndjson", null, TIMEOUT);

    assertThat(head.status()).isEqualTo(200);
    assertThat(head.header("content-type")).isEqualTo("application/x-ndjson");
  }

  @Test
  void noContentHasNoBodyAndKeepsTheConnection() throws Exception {
    int[] served = {0};
    // A 204 has neither Content-Length nor chunks; waiting for a body (or for the close) would
    // run into the read timeout.
    server = FakeHttpServer.responding(request -> ++served[0] == 1
        ? "HTTP/1.1 204 No Content\r\n\r\n"
        : ok("after"));
    Http1Connection conn = open("");

    long start = System.nanoTime();
    HttpTransport.Reply reply = conn.exchange("POST", "/jobs/x/success", JSON, null, null,
        TIMEOUT);
    long tookMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(reply.status()).isEqualTo(204);
    assertThat(reply.body()).isEmpty();
    assertThat(tookMillis).isLessThan(TIMEOUT.toMillis());
    assertThat(conn.reusable()).isTrue();
    HttpTransport.Reply next = conn.exchange("GET", "/y", JSON, null, null, TIMEOUT);
    assertThat(text(next.body())).isEqualTo("after");
    assertThat(server.connections()).isEqualTo(1);
  }

  @Test
  void headerNamesAreMatchedWithoutRegardToCase() throws Exception {
    int[] served = {0};
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write("HTTP/1.1 200 OK\r\ncontent-TYPE: application/json\r\n"
          + "CONTENT-LENGTH: 3\r\n\r\nabc");
      conn.readRequest();
      conn.write("HTTP/1.1 200 OK\r\nTRANSFER-encoding: Chunked\r\n\r\n3\r\ndef\r\n0\r\n\r\n");
      conn.readRequest();
      conn.write("HTTP/1.1 200 OK\r\nconnection: CLOSE\r\ncontent-length: 3\r\n\r\nghi");
      conn.awaitClientClose(Duration.ofSeconds(5));
    });
    Http1Connection conn = open("");

    HttpTransport.Reply first = conn.exchange("GET", "/1", JSON, null, null, TIMEOUT);
    assertThat(first.contentType()).isEqualTo(JSON);
    assertThat(text(first.body())).isEqualTo("abc");
    assertThat(conn.reusable()).isTrue();

    HttpTransport.Reply second = conn.exchange("GET", "/2", JSON, null, null, TIMEOUT);
    assertThat(text(second.body())).isEqualTo("def");
    assertThat(conn.reusable()).isTrue();

    HttpTransport.Reply third = conn.exchange("GET", "/3", JSON, null, null, TIMEOUT);
    assertThat(text(third.body())).isEqualTo("ghi");
    assertThat(conn.reusable()).isFalse();
  }

  @Test
  void streamHeadHeadersAreLowerCased() throws Exception {
    server = FakeHttpServer.responding(request -> "HTTP/1.1 200 OK\r\n"
        + "Content-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "3\r\n{}\n\r\n0\r\n\r\n");

    Http1Connection conn = open("");
    Http1Connection.Head head =
        conn.openStream("/jobs/take", "application/x-ndjson", "w", TIMEOUT);

    assertThat(head.headers()).containsKeys("content-type", "transfer-encoding");
    assertThat(head.header("content-type")).isEqualTo("application/x-ndjson");
    try (InputStream body = conn.body(head)) {
      assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("{}\n");
    }
  }

  @Test
  void chunkedWinsOverContentLength() throws Exception {
    server = FakeHttpServer.responding(request -> "HTTP/1.1 200 OK\r\n"
        + "Content-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "2\r\nhi\r\n0\r\n\r\n");

    HttpTransport.Reply reply = open("").exchange("GET", "/", JSON, null, null, TIMEOUT);

    assertThat(text(reply.body())).isEqualTo("hi");
  }

  // --- Failures ---

  @Test
  void cutOffSizedBodyIsAnEofExceptionAndNotReusable() throws Exception {
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
      conn.close();
    });
    Http1Connection conn = open("");

    assertThatThrownBy(() -> conn.exchange("GET", "/", JSON, null, null, TIMEOUT))
        .isInstanceOf(EOFException.class);
    assertThat(conn.reusable()).isFalse();
  }

  @Test
  void closeBeforeAnyResponseIsAnEofException() throws Exception {
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.close();
    });
    Http1Connection conn = open("");

    assertThatThrownBy(() -> conn.exchange("GET", "/", JSON, null, null, TIMEOUT))
        .isInstanceOf(IOException.class);
    assertThat(conn.reusable()).isFalse();
  }

  @Test
  void notAnHttpResponseIsAnIoException() throws Exception {
    server = FakeHttpServer.responding(request -> "SSH-2.0-OpenSSH\r\n\r\n");

    Http1Connection conn = open("");

    assertThatThrownBy(() -> conn.exchange("GET", "/", JSON, null, null, TIMEOUT))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not an HTTP/1.1 response");
  }

  @Test
  void nonNumericContentLengthIsAnIoException() throws Exception {
    server = FakeHttpServer.responding(request -> "HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n");

    Http1Connection conn = open("");

    assertThatThrownBy(() -> conn.exchange("GET", "/", JSON, null, null, TIMEOUT))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Content-Length");
  }

  /** A negative Content-Length must not reach a read as a negative length. */
  @Test
  void negativeContentLengthIsAnIoException() throws Exception {
    server = FakeHttpServer.responding(request -> "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n");

    Http1Connection conn = open("");

    assertThatThrownBy(() -> conn.exchange("GET", "/", JSON, null, null, TIMEOUT))
        .isInstanceOf(IOException.class);
  }

  @Test
  void exchangeTimesOutWhenNoResponseComes() throws Exception {
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.awaitClientClose(Duration.ofSeconds(5));
    });
    Http1Connection conn = open("");

    long start = System.nanoTime();
    assertThatThrownBy(() -> conn.exchange("GET", "/", JSON, null, null, Duration.ofMillis(300)))
        .isInstanceOf(SocketTimeoutException.class);
    long tookMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(tookMillis).isBetween(250L, 2_500L);
    assertThat(conn.reusable()).isFalse();
  }

  @Test
  void closeMakesTheConnectionUnusable() throws Exception {
    server = FakeHttpServer.responding(request -> ok("{}"));
    Http1Connection conn = open("");
    conn.exchange("GET", "/", JSON, null, null, TIMEOUT);
    assertThat(conn.reusable()).isTrue();

    conn.close();

    assertThat(conn.reusable()).isFalse();
    assertThatThrownBy(() -> conn.exchange("GET", "/", JSON, null, null, TIMEOUT))
        .isInstanceOf(IOException.class);
  }

  @Test
  void connectionRefusedIsAnIoException() throws Exception {
    server = FakeHttpServer.responding(request -> ok("{}"));
    String url = server.url();
    server.close();

    assertThatThrownBy(() -> Http1Connection.open(URI.create(url), TIMEOUT, DEFAULT_TLS))
        .isInstanceOf(IOException.class);
  }

  // --- Streams ---

  @Test
  void streamBodyIsNotBoundByTheHeadTimeout() throws Exception {
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
      Thread.sleep(800); // longer than the head timeout below: a quiet stream
      conn.write("5\r\nlater\r\n0\r\n\r\n");
      conn.awaitClientClose(Duration.ofSeconds(5));
    });
    Http1Connection conn = open("");

    Http1Connection.Head head =
        conn.openStream("/jobs/take", "application/x-ndjson", null, Duration.ofMillis(200));
    byte[] body = conn.body(head).readAllBytes();

    assertThat(text(body)).isEqualTo("later");
  }

  @Test
  void aStreamHeadTimeoutTooLongToCountIsCapped() throws Exception {
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n0\r\n\r\n");
      conn.awaitClientClose(Duration.ofSeconds(5));
    });
    Http1Connection conn = open("");

    Http1Connection.Head head = conn.openStream("/jobs/take", "application/x-ndjson", null,
        Duration.ofSeconds(Long.MAX_VALUE));

    assertThat(text(conn.body(head).readAllBytes())).isEqualTo("first");
  }

  @Test
  void streamHeadIsBoundByTheHeadTimeout() throws Exception {
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.awaitClientClose(Duration.ofSeconds(5));
    });
    Http1Connection conn = open("");

    assertThatThrownBy(() ->
        conn.openStream("/jobs/take", "application/x-ndjson", null, Duration.ofMillis(200)))
        .isInstanceOf(SocketTimeoutException.class);
  }

  @Test
  void closingFromAnotherThreadUnblocksABlockedStreamRead() throws Exception {
    CountDownLatch serverDone = new CountDownLatch(1);
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write("HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n"
          + "Transfer-Encoding: chunked\r\n\r\n3\r\n{}\n\r\n");
      // Then silence, with the connection open, until the test ends.
      serverDone.await(10, TimeUnit.SECONDS);
    });
    Http1Connection conn = open("");
    Http1Connection.Head head =
        conn.openStream("/jobs/take", "application/x-ndjson", "w", TIMEOUT);
    InputStream body = conn.body(head);

    CountDownLatch ended = new CountDownLatch(1);
    AtomicReference<Object> outcome = new AtomicReference<>();
    AtomicReference<String> firstFrame = new AtomicReference<>("");
    Thread reader = new Thread(() -> {
      try {
        byte[] buffer = new byte[64];
        int n = body.read(buffer, 0, buffer.length);
        firstFrame.set(new String(buffer, 0, n, StandardCharsets.UTF_8));
        outcome.set(body.read(buffer, 0, buffer.length)); // blocks: nothing more is coming
      } catch (Throwable e) {
        outcome.set(e);
      } finally {
        ended.countDown();
      }
    }, "blocked-stream-reader");
    reader.setDaemon(true);
    try {
      reader.start();
      // Wait until the reader is parked in a socket read, past the first chunk.
      Await.until(() -> !firstFrame.get().isEmpty() && inSocketRead(reader),
          "the reader to block in a socket read");
      assertThat(ended.getCount()).as("reader still blocked before close").isEqualTo(1);

      long start = System.nanoTime();
      conn.close();
      boolean unblocked = ended.await(2, TimeUnit.SECONDS);
      long tookMillis = (System.nanoTime() - start) / 1_000_000;

      assertThat(unblocked).as("read returned within 2 s of close").isTrue();
      assertThat(tookMillis).isLessThan(2_000);
      assertThat(firstFrame.get()).isEqualTo("{}\n");
      // The blocked read ends either with an IOException or with end of stream.
      assertThat(outcome.get()).satisfiesAnyOf(
          o -> assertThat(o).isInstanceOf(IOException.class),
          o -> assertThat(o).isEqualTo(-1));
      assertThat(conn.reusable()).isFalse();
    } finally {
      serverDone.countDown();
    }
  }

  private static boolean inSocketRead(Thread thread) {
    return Arrays.stream(thread.getStackTrace()).anyMatch(frame ->
        frame.getClassName().startsWith("sun.nio.ch.")
            || frame.getClassName().startsWith("java.net.Socket"));
  }
}

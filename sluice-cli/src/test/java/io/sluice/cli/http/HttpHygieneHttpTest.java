package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * Requests the HTTP/1.1 decoder would reject with an empty body, or accept although they are
 * ambiguous (RFC 9112), each sent over a raw socket: every answer is a JSON error (API.md §3.6),
 * the connection is closed after it (the rest of the stream cannot be framed), and nothing of it
 * is logged as an error.
 */
class HttpHygieneHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(3);

  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void captureLogs() {
    logged.start();
    rootLogger().addAppender(logged);
  }

  @AfterEach
  void nothingLoggedAsAnError() {
    rootLogger().detachAppender(logged);
    List<String> errors = loggedEvents().stream()
        .filter(event -> event.getLevel().isGreaterOrEqual(Level.ERROR))
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
    assertThat(errors).isEmpty();
  }

  private List<ILoggingEvent> loggedEvents() {
    synchronized (logged) {
      return List.copyOf(logged.list);
    }
  }

  private static Logger rootLogger() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }

  /** Sends {@code request}, expects one JSON error and a closed connection; returns the error. */
  private static String refused(String request, int status) throws Exception {
    try (RawHttp connection = RawHttp.connect(server.port())) {
      RawHttp.Response response = connection.send(request).read();

      assertThat(response.status()).isEqualTo(status);
      String error = response.error();
      assertThat(connection.closedWithin(CLOSE_TIMEOUT)).as("closed after the answer").isTrue();
      return error;
    }
  }

  @Test
  void aRequestLineTooLongIs414() throws Exception {
    String error = refused("GET /" + "a".repeat(70_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414);

    assertThat(error).isEqualTo("request line too long (at most 65536 bytes)");
  }

  @Test
  void headerFieldsTooLargeAre431() throws Exception {
    String error = refused(
        "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(70_000) + "\r\n\r\n", 431);

    assertThat(error).isEqualTo("request header fields too large (at most 65536 bytes)");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "GARBAGE\\r\\n\\r\\n|malformed request",
    "GET /health HTTP/1.1\\r\\nHo st: x\\r\\n\\r\\n|malformed request: ",
    "GET /health FOO/1.1\\r\\nHost: x\\r\\n\\r\\n|malformed request line",
    "GET /health HTTP/1.1\\nHost: x\\n\\n|malformed request: ",
    "POST /jobs HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 1x\\r\\n\\r\\n|invalid Content-Length: 1x",
    "POST /jobs HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 5\\r\\nContent-Length: 6\\r\\n\\r\\n|"
        + "invalid Content-Length: 5,6"
  })
  void aMalformedRequestIs400(String request, String message) throws Exception {
    String error = refused(request.replace("\\r", "\r").replace("\\n", "\n"), 400);

    assertThat(error).startsWith(message);
  }

  @ParameterizedTest
  @CsvSource({"HTTP/2.0", "HTTP/1.3", "HTTP/0.9"})
  void anUnsupportedVersionIs505(String version) throws Exception {
    String error = refused("GET /health " + version + "\r\nHost: x\r\n\r\n", 505);

    assertThat(error).isEqualTo("HTTP version not supported: " + version);
  }

  @ParameterizedTest
  @CsvSource({"xchunked", "'gzip, chunked'", "identity"})
  void anUnknownTransferCodingIs501(String coding) throws Exception {
    String error = refused("POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Transfer-Encoding: " + coding + "\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 501);

    assertThat(error).isEqualTo("unsupported transfer coding: " + coding);
  }

  @Test
  void obsoleteLineFoldingIs400() throws Exception {
    String error = refused(
        "GET /health HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n", 400);

    assertThat(error).isEqualTo("obsolete line folding in header fields is not allowed");
  }

  @Test
  void contentLengthWithTransferEncodingIs400AndNothingAfterItIsAnswered() throws Exception {
    String queue = ServerFixture.uniqueName("smuggle");
    String job = ServerFixture.job(queue, "smuggled").toString();
    // Read by Content-Length the body is "0\r\n\r\n"; read as chunked it is empty and the
    // enqueue after it would be the next request.
    String request = "POST /jobs/zzzzzzzzzzzzzzzzzzzzzzzzz/success HTTP/1.1\r\nHost: x\r\n"
        + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        + "POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + job.length() + "\r\n\r\n" + job;

    String error = refused(request, 400);

    assertThat(error).isEqualTo("Content-Length and Transfer-Encoding must not both be present");
    server.assertNothingReady(queue);
  }

  @Test
  void aBadChunkSizeIs400() throws Exception {
    String error = refused("POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", 400);

    assertThat(error).isEqualTo("malformed chunked body: invalid chunk size");
  }

  @Test
  void requestsBeforeARefusedOneAreAnsweredFirst() throws Exception {
    try (RawHttp connection = RawHttp.connect(server.port())) {
      connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /version HTTP/1.1\r\nHost: x\r\n\r\n"
          + "GET /health HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n\tb\r\n\r\n");

      assertThat(connection.read().json().get("status").textValue()).isEqualTo("ok");
      assertThat(connection.read().json().get("version").textValue()).isEqualTo("0.7.0");
      RawHttp.Response refused = connection.read();
      assertThat(refused.status()).isEqualTo(400);
      assertThat(connection.closedWithin(CLOSE_TIMEOUT)).isTrue();
    }
  }

  @Test
  void anUpgradeToH2cIsIgnored() throws Exception {
    try (RawHttp connection = RawHttp.connect(server.port())) {
      RawHttp.Response response = connection.send("GET /health HTTP/1.1\r\nHost: x\r\n"
          + "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
          + "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n").read();

      assertThat(response.status()).isEqualTo(200);
      assertThat(connection.send("GET /version HTTP/1.1\r\nHost: x\r\n\r\n").read().status())
          .as("still HTTP/1.1").isEqualTo(200);
    }
  }

  @Test
  void aClientLeavingMidBodyIsLoggedAtDebug() throws Exception {
    Logger httpErrors = (Logger) LoggerFactory.getLogger("io.sluice.api.http.HttpError");
    httpErrors.setLevel(Level.DEBUG);
    try {
      try (RawHttp connection = RawHttp.connect(server.port())) {
        connection.send("POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: 1000\r\n\r\n{\"queue\":");
      }

      ServerFixture.poll(this::loggedEvents, events -> events.stream().anyMatch(
          event -> event.getLevel() == Level.DEBUG
              && event.getFormattedMessage().contains("HttpClosedException")),
          "the failed body read logged at DEBUG");
    } finally {
      httpErrors.setLevel(null);
    }
  }
}

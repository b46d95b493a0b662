package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.msgpack.jackson.dataformat.MessagePackFactory;

@Timeout(value = 8, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class AckChannelTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(3);
  private static final ObjectMapper JSON = new ObjectMapper();

  private FakeHttpServer server;
  private AckChannel channel;

  @AfterEach
  void tearDown() {
    if (channel != null) {
      channel.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private AckChannel channel(String url) {
    return channel(url, WireFormat.JSON);
  }

  private AckChannel channel(String url, WireFormat format) {
    SluiceClient client = SluiceClient.builder(url)
        .connectTimeout(TIMEOUT)
        .requestTimeout(TIMEOUT)
        .format(format)
        .build();
    channel = client.jobs().ackChannel();
    return channel;
  }

  private static String response(int status, String body) {
    return "HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
  }

  private static String okResponse() {
    return response(200, "{}");
  }

  /** Asserts a well-formed ack request for {@code ids}; returns it. */
  private static FakeHttpServer.Request assertAck(FakeHttpServer.Request request, String... ids)
      throws IOException {
    assertThat(request.line()).isEqualTo("POST /jobs/success HTTP/1.1");
    assertThat(request.header("Content-Type")).isEqualTo("application/json");
    assertThat(request.header("Accept")).isEqualTo("application/json");
    assertThat(request.header("Content-Length"))
        .isEqualTo(Integer.toString(request.body().length));
    JsonNode body = JSON.readTree(request.body());
    assertThat(body.path("ids").isArray()).as("body %s", request.bodyText()).isTrue();
    assertThat(body.path("ids")).extracting(JsonNode::asText).containsExactly(ids);
    return request;
  }

  @Test
  void firstAckOpensAConnectionAndLaterAcksReuseIt() throws Exception {
    server = FakeHttpServer.responding(request -> okResponse());
    AckChannel acks = channel(server.url());
    assertThat(server.connections()).isZero();

    assertThat(acks.ackAll(List.of("a", "b"))).isEmpty();
    assertThat(acks.ackAll(List.of("c"))).isEmpty();
    assertThat(acks.ackAll(List.of("d", "e", "f"))).isEmpty();

    assertThat(server.connections()).isEqualTo(1);
    List<FakeHttpServer.Request> requests = server.requests();
    assertThat(requests).hasSize(3);
    assertAck(requests.get(0), "a", "b");
    assertAck(requests.get(1), "c");
    assertAck(requests.get(2), "d", "e", "f");
    assertThat(requests).extracting(FakeHttpServer.Request::connection).containsOnly(0);
  }

  @Test
  void basePathOfTheClientPrefixesTheAckPath() throws Exception {
    server = FakeHttpServer.responding(request -> okResponse());

    channel(server.url() + "/sluice/").ackAll(List.of("a"));

    assertThat(server.takeRequest(TIMEOUT).line()).isEqualTo("POST /sluice/jobs/success HTTP/1.1");
  }

  @Test
  void noContentAnswerMeansEveryJobWasAcked() throws Exception {
    server = FakeHttpServer.responding(request -> "HTTP/1.1 204 No Content\r\n\r\n");
    AckChannel acks = channel(server.url());

    assertThat(acks.ackAll(List.of("a"))).isEmpty();
    assertThat(acks.ackAll(List.of("b"))).isEmpty();

    assertThat(server.connections()).isEqualTo(1);
  }

  @Test
  void keptAliveConnectionClosedByTheServerIsRetriedOnceOnANewConnection() throws Exception {
    // Every connection serves one response, without announcing "Connection: close", then closes.
    server = FakeHttpServer.start(conn -> {
      if (conn.readRequest() != null) {
        conn.write(okResponse());
      }
      conn.close();
    });
    AckChannel acks = channel(server.url());

    assertThat(acks.ackAll(List.of("a"))).isEmpty();
    // Let the server's close land first, so the channel holds a connection known to be dead.
    Await.until(() -> server.finishedConnections() == 1, "the server to close connection 0");

    assertThat(acks.ackAll(List.of("b", "c"))).isEmpty();

    assertThat(server.connections()).isEqualTo(2);
    List<FakeHttpServer.Request> requests = server.requests();
    assertThat(requests).hasSize(2);
    assertThat(assertAck(requests.get(0), "a").connection()).isZero();
    assertThat(assertAck(requests.get(1), "b", "c").connection()).isEqualTo(1);
  }

  @Test
  void retriesOnEveryAckWhoseKeptAliveConnectionDied() throws Exception {
    server = FakeHttpServer.start(conn -> {
      if (conn.readRequest() != null) {
        conn.write(okResponse());
      }
      conn.close();
    });
    AckChannel acks = channel(server.url());

    for (int i = 0; i < 4; i++) {
      int finished = i;
      if (i > 0) {
        Await.until(() -> server.finishedConnections() == finished, "connection close " + i);
      }
      assertThat(acks.ackAll(List.of("job-" + i))).isEmpty();
    }

    assertThat(server.connections()).isEqualTo(4);
    List<FakeHttpServer.Request> requests = server.requests();
    for (int i = 0; i < 4; i++) {
      assertAck(requests.get(i), "job-" + i);
    }
  }

  @Test
  void failureOfABrandNewConnectionIsNotRetried() {
    // Accepts and closes at once, every time.
    server = FakeHttpServer.start(FakeHttpServer.Conn::close);
    AckChannel acks = channel(server.url());

    assertThatThrownBy(() -> acks.ackAll(List.of("a")))
        .isInstanceOf(ConnectionException.class)
        .satisfies(e -> assertThat(((ConnectionException) e).getCause())
            .isInstanceOf(IOException.class));
    assertThat(server.connections()).isEqualTo(1);

    // The next ack starts over on a new connection, and fails the same way, once.
    assertThatThrownBy(() -> acks.ackAll(List.of("a")))
        .isInstanceOf(ConnectionException.class);
    assertThat(server.connections()).isEqualTo(2);
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void failedRetryThrowsAfterExactlyOneMoreConnection() throws Exception {
    // Connection 0 answers once and closes; every later one is closed as soon as it is accepted.
    server = FakeHttpServer.start(conn -> {
      if (conn.index == 0 && conn.readRequest() != null) {
        conn.write(okResponse());
      }
      conn.close();
    });
    AckChannel acks = channel(server.url());
    assertThat(acks.ackAll(List.of("a"))).isEmpty();
    Await.until(() -> server.finishedConnections() == 1, "the server to close connection 0");

    assertThatThrownBy(() -> acks.ackAll(List.of("b")))
        .isInstanceOf(ConnectionException.class);

    assertThat(server.connections()).isEqualTo(2);
  }

  @Test
  void unreachableServerIsAConnectionException() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    AckChannel acks = channel("http://127.0.0.1:" + port);

    assertThatThrownBy(() -> acks.ackAll(List.of("a"))).isInstanceOf(ConnectionException.class);
  }

  @Test
  void connectionCloseAnswerLeadsToAFreshConnectionForTheNextAck() throws Exception {
    List<Boolean> closedByClient = new java.util.concurrent.CopyOnWriteArrayList<>();
    server = FakeHttpServer.start(conn -> {
      if (conn.readRequest() != null) {
        conn.write("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}");
        // The server leaves the closing to the client, which must not keep the connection.
        closedByClient.add(conn.awaitClientClose(Duration.ofSeconds(2)));
      }
    });
    AckChannel acks = channel(server.url());

    assertThat(acks.ackAll(List.of("a"))).isEmpty();
    Await.until(() -> server.finishedConnections() == 1, "connection 0 to end");
    assertThat(closedByClient).containsExactly(true);
    assertThat(acks.ackAll(List.of("b"))).isEmpty();

    assertThat(server.connections()).isEqualTo(2);
    assertThat(server.requests()).extracting(FakeHttpServer.Request::connection)
        .containsExactly(0, 1);
  }

  @Test
  void notFoundIdsOfA422AreReturned() throws Exception {
    server = FakeHttpServer.responding(request -> response(422, "{\"not_found\":[\"a\"]}"));
    AckChannel acks = channel(server.url());

    assertThat(acks.ackAll(List.of("a", "b"))).containsExactly("a");
    // The 422 was a complete answer: the connection stays in use.
    assertThat(acks.ackAll(List.of("a"))).containsExactly("a");
    assertThat(server.connections()).isEqualTo(1);
  }

  @Test
  void a422WithoutNotFoundIsAValidationException() {
    server = FakeHttpServer.responding(request -> response(422, "{\"error\":\"ids must not be empty\"}"));
    AckChannel acks = channel(server.url());

    assertThatThrownBy(() -> acks.ackAll(List.of()))
        .isInstanceOf(ValidationException.class)
        .hasMessageContaining("ids must not be empty");
  }

  @Test
  void a500IsAServerExceptionAndKeepsTheConnection() {
    AtomicInteger served = new AtomicInteger();
    server = FakeHttpServer.responding(request -> served.incrementAndGet() == 1
        ? response(500, "{\"error\":\"disk on fire\"}")
        : okResponse());
    AckChannel acks = channel(server.url());

    assertThatThrownBy(() -> acks.ackAll(List.of("a")))
        .isInstanceOfSatisfying(ServerException.class, e -> {
          assertThat(e.status()).isEqualTo(500);
          assertThat(e.serverMessage()).isEqualTo("disk on fire");
        });
    assertThat(server.requests()).hasSize(1); // an error answer is not retried

    assertThat(acks.ackAll(List.of("a"))).isEmpty();
    assertThat(server.connections()).isEqualTo(1);
  }

  @Test
  void a503WithAnHtmlBodyIsAServerException() {
    server = FakeHttpServer.responding(request -> "HTTP/1.1 503 Service Unavailable\r\n"
        + "Content-Type: text/html\r\nContent-Length: 13\r\n\r\n<h1>down</h1>");
    AckChannel acks = channel(server.url());

    assertThatThrownBy(() -> acks.ackAll(List.of("a")))
        .isInstanceOf(ServerException.class)
        .hasMessageContaining("503");
  }

  @Test
  void garbledAnswerIsAConnectionExceptionAndTheNextAckUsesANewConnection() throws Exception {
    AtomicInteger served = new AtomicInteger();
    server = FakeHttpServer.responding(request -> served.incrementAndGet() == 1
        ? "HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n"
        : okResponse());
    AckChannel acks = channel(server.url());

    assertThatThrownBy(() -> acks.ackAll(List.of("a"))).isInstanceOf(ConnectionException.class);
    assertThat(acks.ackAll(List.of("a"))).isEmpty();

    assertThat(server.connections()).isEqualTo(2);
  }

  /** A negative Content-Length is a broken answer: a ConnectionException, not an unchecked one. */
  @Test
  void negativeContentLengthIsAConnectionException() {
    server = FakeHttpServer.responding(request -> "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n");
    AckChannel acks = channel(server.url());

    assertThatThrownBy(() -> acks.ackAll(List.of("a"))).isInstanceOf(ConnectionException.class);
  }

  @Test
  void msgpackFormatSendsAndReadsMsgpack() throws Exception {
    ObjectMapper msgpack = new ObjectMapper(new MessagePackFactory());
    byte[] notFound = msgpack.writeValueAsBytes(java.util.Map.of("not_found", List.of("x")));
    server = FakeHttpServer.responding(request -> "HTTP/1.1 422 X\r\n"
        + "Content-Type: application/msgpack\r\nContent-Length: " + notFound.length + "\r\n\r\n"
        + new String(notFound, StandardCharsets.ISO_8859_1));
    AckChannel acks = channel(server.url(), WireFormat.MSGPACK);

    assertThat(acks.ackAll(List.of("x", "y"))).containsExactly("x");

    FakeHttpServer.Request request = server.takeRequest(TIMEOUT);
    assertThat(request.header("Content-Type")).isEqualTo("application/msgpack");
    assertThat(request.header("Accept")).isEqualTo("application/msgpack");
    JsonNode body = msgpack.readTree(request.body());
    assertThat(body.path("ids")).extracting(JsonNode::asText).containsExactly("x", "y");
  }

  @Test
  void closeClosesTheConnection() throws Exception {
    server = FakeHttpServer.start(conn -> {
      conn.readRequest();
      conn.write(okResponse());
      // Closing the channel must end the kept-alive connection.
      if (!conn.awaitClientClose(Duration.ofSeconds(3))) {
        throw new AssertionError("client did not close");
      }
    });
    AckChannel acks = channel(server.url());
    acks.ackAll(List.of("a"));

    acks.close();

    Await.until(() -> server.finishedConnections() == 1, "the server to see the close");
    assertThat(server.failures()).isEmpty();
  }
}

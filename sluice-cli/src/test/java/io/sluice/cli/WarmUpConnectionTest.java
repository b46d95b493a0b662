package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The warm-up's client against a socket that answers with canned bytes. */
@Timeout(30)
class WarmUpConnectionTest {
  /** Answers the first request on one connection with {@code answer}; gives back the request. */
  private static CompletableFuture<String> serveOnce(ServerSocket listener, String answer) {
    return CompletableFuture.supplyAsync(() -> {
      try (Socket socket = listener.accept()) {
        String request = readHead(socket.getInputStream());
        socket.getOutputStream().write(answer.getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
        // Keep the connection open until the client closes it.
        socket.getInputStream().transferTo(OutputStream.nullOutputStream());
        return request;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      head.write(in.read());
    }
    return head.toString(StandardCharsets.US_ASCII);
  }

  private static WarmUpConnection connect(ServerSocket listener, long millis) throws IOException {
    return new WarmUpConnection("127.0.0.1", listener.getLocalPort(), () -> millis);
  }

  @Test
  void readsAnAnswerOfDeclaredLengthAndSendsTheBodyWithItsLength() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<String> request = serveOnce(listener,
          "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\ncontent-length: 11\r\n\r\n"
              + "{\"id\":\"j\"}\n");
      try (WarmUpConnection connection = connect(listener, 5_000)) {
        WarmUpConnection.Answer answer = connection.send("POST", "/jobs", "{\"a\":\"é\"}");

        assertThat(answer.status()).isEqualTo(201);
        assertThat(answer.body()).isEqualTo("{\"id\":\"j\"}\n");
      }
      assertThat(request.get(5, TimeUnit.SECONDS)).startsWith("POST /jobs HTTP/1.1\r\n")
          .contains("Content-Type: application/json\r\n")
          .contains("Content-Length: 10\r\n"); // é is two bytes
    }
  }

  @Test
  void readsAChunkedStreamLineByLineAcrossChunksExtensionsAndTrailers() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      serveOnce(listener, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "6\r\n{\"a\":1\r\n"
          + "3;ext=1\r\n}\n\n\r\n"
          + "8\r\n{\"b\":2}\n\r\n"
          + "0\r\nTrailer: x\r\n\r\n");
      try (WarmUpConnection connection = connect(listener, 5_000)) {
        assertThat(connection.openStream("/jobs/take?queue=q", "application/x-ndjson"))
            .isEqualTo(200);

        assertThat(connection.readLine()).isEqualTo("{\"a\":1}");
        assertThat(connection.readLine()).as("a heartbeat").isEmpty();
        assertThat(connection.readLine()).isEqualTo("{\"b\":2}");
        assertThat(connection.readLine()).as("the stream's end").isNull();
      }
    }
  }

  @Test
  void aChunksClosingLineEndIsNotTakenForMoreData() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      serveOnce(listener, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "c\r\n{\"id\":\"j1\"}\n\r\n");
      try (WarmUpConnection connection = connect(listener, 5_000)) {
        connection.openStream("/jobs/take?queue=q", "application/x-ndjson");

        assertThat(connection.readLine()).isEqualTo("{\"id\":\"j1\"}");
        // The warm-up acknowledges a job that arrived alone at once, as a worker would.
        assertThat(connection.ready()).as("nothing more has arrived").isFalse();
      }
    }
  }

  @Test
  void givesTheStatusOfARefusedStreamAndRefusesOneThatIsNotChunked() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      serveOnce(listener, "HTTP/1.1 400 Bad Request\r\nContent-Length: 2\r\n\r\n{}");
      try (WarmUpConnection connection = connect(listener, 5_000)) {
        assertThat(connection.openStream("/jobs/take", "application/x-ndjson")).isEqualTo(400);
      }
      serveOnce(listener, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
      try (WarmUpConnection connection = connect(listener, 5_000)) {
        assertThatThrownBy(() -> connection.openStream("/jobs/take", "application/x-ndjson"))
            .isInstanceOf(IOException.class).hasMessageContaining("chunked");
      }
    }
  }

  @Test
  void aServerThatStopsAnsweringTimesOutAtTheDeadline() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      serveOnce(listener, "HTTP/1.1 201 Created\r\nContent-Length: 100\r\n\r\n{");
      try (WarmUpConnection connection = connect(listener, 200)) {
        assertThatThrownBy(() -> connection.send("POST", "/jobs", "{}"))
            .isInstanceOf(SocketTimeoutException.class);
      }
    }
  }
}

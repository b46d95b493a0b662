package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * HTTP/1.1 keep-alive (API.md §2): requests rejected before their body is read (415, 406, 400,
 * 404, 405) must not leave that body on the connection to be parsed as the next request. The
 * server may instead close the connection; it may never answer the wrong request.
 */
class KeepAliveHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  record Response(int status, Map<String, String> headers, byte[] body) {
    JsonNode json() throws IOException {
      return JSON.readTree(body);
    }

    boolean closes() {
      return "close".equalsIgnoreCase(headers.get("connection"));
    }
  }

  /** One HTTP/1.1 connection that reconnects only when the server closed the previous one. */
  static final class Connection implements AutoCloseable {
    private RawHttp raw;
    int connects;

    Response exchange(String method, String path, String contentType, byte[] body,
        String... headers) throws IOException {
      if (raw == null) {
        raw = RawHttp.connect(server.port());
        connects++;
      }
      StringBuilder head = new StringBuilder()
          .append(method).append(' ').append(path).append(" HTTP/1.1\r\n")
          .append("Host: 127.0.0.1\r\n");
      if (contentType != null) {
        head.append("Content-Type: ").append(contentType).append("\r\n");
      }
      for (int i = 0; i < headers.length; i += 2) {
        head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
      }
      head.append("Content-Length: ").append(body == null ? 0 : body.length).append("\r\n\r\n");
      raw.send(head.toString());
      if (body != null) {
        raw.send(body);
      }
      RawHttp.Response read = raw.read();
      Response response = new Response(read.status(), read.headers(), read.body());
      if (response.closes()) {
        close();
      }
      return response;
    }

    @Override
    public void close() throws IOException {
      if (raw != null) {
        raw.close();
        raw = null;
      }
    }
  }

  /** A body that is itself a complete, valid HTTP request, to expose any misparsing. */
  static byte[] smugglingBody(String queue) {
    String inner = job(queue, "smuggled").toString();
    String request = "POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + inner.length() + "\r\n\r\n" + inner;
    return (request + " ".repeat(64 * 1024)).getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void rejectedRequestBodiesNeverBecomeRequests() throws Exception {
    String queue = ServerFixture.uniqueName("keepalive");
    byte[] body = smugglingBody(queue);
    try (Connection connection = new Connection()) {
      Response unsupported = connection.exchange("POST", "/jobs", "text/plain", body);
      assertThat(unsupported.status()).isEqualTo(415);
      assertThat(connection.exchange("GET", "/health", null, null).status()).isEqualTo(200);

      Response unacceptable = connection.exchange("POST", "/jobs", "application/json", body,
          "Accept", "text/plain");
      assertThat(unacceptable.status()).isEqualTo(406);
      assertThat(connection.exchange("GET", "/version", null, null).json().get("version")
          .textValue()).isEqualTo("0.7.0");

      Response badQuery = connection.exchange("POST", "/jobs?bogus=1", "application/json", body);
      assertThat(badQuery.status()).isEqualTo(400);
      assertThat(connection.exchange("GET", "/health", null, null).status()).isEqualTo(200);

      Response notAllowed = connection.exchange("PUT", "/jobs/take", "application/json", body);
      assertThat(notAllowed.status()).isEqualTo(405);
      assertThat(connection.exchange("GET", "/health", null, null).status()).isEqualTo(200);

      Response notFound = connection.exchange("POST", "/nope", "application/json", body);
      assertThat(notFound.status()).isEqualTo(404);
      assertThat(connection.exchange("GET", "/health", null, null).status()).isEqualTo(200);

      Response ack = connection.exchange("POST", "/jobs/zzzzzzzzzzzzzzzzzzzzzzzzz/success",
          "application/json", body);
      assertThat(ack.status()).isEqualTo(404);
      assertThat(connection.exchange("GET", "/health", null, null).status()).isEqualTo(200);
    }
    // None of the bodies was executed as a request.
    server.assertNothingReady(queue);
  }

  /**
   * A request pipelined behind one that asks to close the connection is never run: Vert.x drops
   * it, and the connection guard, which may answer an enqueue itself, must not take it either.
   */
  @Test
  void aRequestPipelinedAfterConnectionCloseIsNeverRun() throws Exception {
    String queue = ServerFixture.uniqueName("keepalive-close");
    String job = job(queue, "after-close").toString();
    for (int attempt = 0; attempt < 5; attempt++) {
      try (RawHttp raw = RawHttp.connect(server.port())) {
        // The first request of a cleartext connection always goes to Vert.x; the guard may
        // answer the ones after it.
        raw.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(raw.read().status()).isEqualTo(200);
        raw.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            + "POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + "Content-Length: " + job.length() + "\r\n\r\n" + job);
        assertThat(raw.read().status()).isEqualTo(200);
      }
    }
    server.assertNothingReady(queue);
  }

  @Test
  void successfulRequestsShareOneConnection() throws Exception {
    String queue = ServerFixture.uniqueName("keepalive-ok");
    try (Connection connection = new Connection()) {
      for (int i = 0; i < 5; i++) {
        Response created = connection.exchange("POST", "/jobs", "application/json",
            job(queue, "t" + i).toString().getBytes(StandardCharsets.UTF_8));
        assertThat(created.status()).isEqualTo(201);
        Response fetched = connection.exchange("GET",
            "/jobs/" + id(created.json()), null, null);
        assertThat(fetched.status()).isEqualTo(200);
        assertThat(fetched.json().get("type").textValue()).isEqualTo("t" + i);
      }
      assertThat(connection.connects).isEqualTo(1);
    }
  }
}

package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.id;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.cli.http.ServerFixture.Taken;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Health, version, routing errors, query checks and path decoding (API.md §2, §3.8, §8.1). */
class RoutingHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  @Nested
  class HealthAndVersion {
    @Test
    void healthReportsOk() {
      Reply reply = server.get("/health");

      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.contentType()).isEqualTo("application/json");
      assertThat(reply.json()).isEqualTo(ServerFixture.JSON.createObjectNode().put("status", "ok"));
    }

    @Test
    void versionReportsApiCompatibilityLevel() {
      Reply reply = server.get("/version");

      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.json())
          .isEqualTo(ServerFixture.JSON.createObjectNode().put("version", "0.7.0"));
    }

    @Test
    void healthAnswersInMessagePackWhenAsked() {
      Reply reply = server.get("/health", "Accept", ServerFixture.MSGPACK_TYPE);

      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.contentType()).isEqualTo(ServerFixture.MSGPACK_TYPE);
      assertThat(reply.msgpack().get("status").textValue()).isEqualTo("ok");
    }
  }

  @Nested
  class UnknownRoutes {
    @ParameterizedTest
    @CsvSource({"/nope", "/jobs/abc/def/ghi/jkl", "/health/extra", "/jobs/x/unknown"})
    void unknownPathIsNotFound(String path) {
      Reply reply = server.get(path);

      assertThat(reply.status()).isEqualTo(404);
      assertThat(reply.contentType()).isEqualTo("application/json");
      assertThat(reply.json())
          .isEqualTo(ServerFixture.JSON.createObjectNode().put("error", "not found"));
    }

    @ParameterizedTest
    @CsvSource({
      "GET, /jobs/bulk",
      "DELETE, /health",
      "POST, /health",
      "PUT, /jobs/take",
      "GET, /jobs/success",
      "GET, /jobs/03gsa8rjaoxgqgnrsnlt7niqb/success",
      "GET, /jobs/03gsa8rjaoxgqgnrsnlt7niqb/failure",
      "POST, /version"
    })
    void knownPathWithWrongMethodIsMethodNotAllowed(String method, String path) {
      Reply reply = server.send(method, path, null);

      assertThat(reply.status()).isEqualTo(405);
      assertThat(reply.json())
          .isEqualTo(ServerFixture.JSON.createObjectNode().put("error", "method not allowed"));
    }
  }

  @Nested
  class QueryParameters {
    @ParameterizedTest
    @CsvSource({
      "/health?verbose=1",
      "/version?x=",
      "/jobs/take?queue=a&bogus=1",
      "/jobs/03gsa8rjaoxgqgnrsnlt7niqb?fields=id"
    })
    void unknownQueryParameterIsRejected(String pathAndQuery) {
      Reply reply = server.get(pathAndQuery);

      assertThat(reply.status()).isEqualTo(400);
      assertThat(reply.error()).startsWith("invalid query parameters");
    }

    @ParameterizedTest
    @CsvSource({
      "/jobs?Queue=x, Queue",
      "/jobs/count?STATUS=ready, STATUS",
      "/jobs/take?Queue=a, Queue",
      "/jobs?queue=a&Limit=5, Limit"
    })
    void parameterNamesAreMatchedWithTheirCase(String pathAndQuery, String name) {
      Reply reply = server.get(pathAndQuery);

      assertThat(reply.status()).isEqualTo(400);
      assertThat(reply.error())
          .isEqualTo("invalid query parameters: unknown parameter `" + name + "`");
    }

    @ParameterizedTest
    @CsvSource({"/jobs/count?queue=%ZZ", "/jobs?queue=a%", "/jobs?%G1=x", "/jobs/take?queue=%%"})
    void malformedPercentEncodingIsRejected(String pathAndQuery) throws IOException {
      // Sent on a raw socket: the JDK client refuses to send such a request line at all.
      String response = rawGet(pathAndQuery);

      assertThat(response).startsWith("HTTP/1.1 400 ");
      assertThat(response).contains(
          "{\"error\":\"invalid query parameters: malformed percent-encoding");
    }

    @Test
    void unknownQueryParameterOnEnqueueStoresNothing() {
      String queue = ServerFixture.uniqueName("query");

      Reply reply = server.postJson("/jobs?dry_run=1", ServerFixture.job(queue, "work"));

      assertThat(reply.status()).isEqualTo(400);
      assertThat(reply.error()).startsWith("invalid query parameters");
      server.assertNothingReady(queue);
    }
  }

  @Nested
  class PathDecoding {
    @Test
    void fullyPercentEncodedIdFindsTheJob() {
      String jobId = server.enqueueId(ServerFixture.uniqueName("decode"));

      Reply reply = server.get("/jobs/" + percentEncodeAll(jobId));

      assertThat(reply.status()).isEqualTo(200);
      assertThat(id(reply.json())).isEqualTo(jobId);
    }

    @Test
    void partlyEncodedIdFindsTheJob() {
      String jobId = server.enqueueId(ServerFixture.uniqueName("decode"));
      String path = "/jobs/" + percentEncodeAll(jobId.substring(0, 1)) + jobId.substring(1);

      Reply reply = server.get(path);

      assertThat(reply.status()).isEqualTo(200);
      assertThat(id(reply.json())).isEqualTo(jobId);
    }

    @Test
    void encodedIdWorksForAcknowledgement() {
      Taken taken = server.takeOne(ServerFixture.uniqueName("decode"));
      try (taken) {
        Reply reply = server.post("/jobs/" + percentEncodeAll(taken.id()) + "/success");

        assertThat(reply.status()).isEqualTo(204);
      }
      assertThat(server.get("/jobs/" + taken.id()).status()).isEqualTo(404);
    }

    @Test
    void encodedSlashStaysInsideOneSegment() {
      // "a%2Fb" is one id segment (unknown job), not the path /jobs/a/b.
      Reply reply = server.get("/jobs/a%2Fb");

      assertThat(reply.status()).isEqualTo(404);
      assertThat(reply.error()).isEqualTo("job not found");
    }

    @Test
    void unknownIdIsJobNotFound() {
      Reply reply = server.get("/jobs/zzzzzzzzzzzzzzzzzzzzzzzzz");

      assertThat(reply.status()).isEqualTo(404);
      assertThat(reply.error()).isEqualTo("job not found");
    }
  }

  @Test
  void getJobShowsNullPayloadExplicitly() {
    var job = ServerFixture.job(ServerFixture.uniqueName("nullpayload"), "work");
    job.putNull("payload");
    String jobId = id(server.enqueue(job));

    JsonNode stored = server.getJob(jobId);

    assertThat(stored.has("payload")).as("with-payload shape always has payload").isTrue();
    assertThat(stored.get("payload").isNull()).isTrue();
    assertThat(stored.get("status").textValue()).isEqualTo("ready");
    assertThat(stored.has("duplicate")).isFalse();
    assertThat(stored.has("folded")).isFalse();
  }

  private static String rawGet(String pathAndQuery) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout((int) ServerFixture.TIMEOUT.toMillis());
      socket.getOutputStream().write(("GET " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static String percentEncodeAll(String text) {
    StringBuilder out = new StringBuilder();
    for (char c : text.toCharArray()) {
      out.append('%').append(String.format("%02X", (int) c));
    }
    return out.toString();
  }
}

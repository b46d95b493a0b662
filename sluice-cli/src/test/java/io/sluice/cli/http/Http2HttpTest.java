package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.TIMEOUT;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.http.ServerFixture.Taken;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * HTTP/2 cleartext with prior knowledge on the primary port (API.md §2): enqueue, acknowledge and
 * take over h2c, and the frame-level rule that a 204 carries no DATA frame.
 */
class Http2HttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();
  static Vertx vertx;

  private HttpClientAgent client;

  @BeforeAll
  static void startVertx() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stopVertx() throws Exception {
    await(vertx.close());
  }

  @BeforeEach
  void openClient() {
    client = vertx.createHttpClient(new HttpClientOptions()
        .setProtocolVersion(HttpVersion.HTTP_2)
        .setHttp2ClearTextUpgrade(false)
        .setDefaultHost("127.0.0.1")
        .setDefaultPort(server.port()));
  }

  @AfterEach
  void closeClient() throws Exception {
    await(client.close());
  }

  static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture()
        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** A complete h2 response. */
  record H2Reply(int status, HttpVersion version, String contentType, Buffer body) {
    JsonNode json() throws IOException {
      return JSON.readTree(body.getBytes());
    }
  }

  /**
   * Sends one request and reads its body. The body is asked for inside the callback that sends
   * the request, which runs on the connection's event loop: chained from the test thread
   * instead, the response could arrive and its data be dropped before anyone listens.
   */
  H2Reply send(HttpMethod method, String uri, String jsonBody) throws Exception {
    return await(client.request(method, uri).compose(request -> {
      Future<HttpClientResponse> response;
      if (jsonBody == null) {
        response = request.send();
      } else {
        request.putHeader("Content-Type", "application/json");
        response = request.send(Buffer.buffer(jsonBody));
      }
      return response.compose(r -> r.body().map(body -> new H2Reply(r.statusCode(),
          r.version(), r.getHeader("Content-Type"), body)));
    }));
  }

  @Test
  void enqueueWorksOverH2c() throws Exception {
    String queue = uniqueName("h2");

    H2Reply reply = send(HttpMethod.POST, "/jobs", job(queue, "over-h2").toString());

    assertThat(reply.version()).isEqualTo(HttpVersion.HTTP_2);
    assertThat(reply.status()).isEqualTo(201);
    assertThat(reply.contentType()).isEqualTo("application/json");
    EnqueueHttpTest.assertMinimalEnqueueShape(reply.json(), queue, "over-h2");
  }

  @Test
  void multiMegabyteBodyOverH2cRespectsFlowControl() throws Exception {
    String queue = uniqueName("h2-large");
    String blob = "h".repeat(3 << 20);
    var request = job(queue, "large");
    request.putObject("payload").put("blob", blob);

    H2Reply reply = send(HttpMethod.POST, "/jobs", request.toString());

    assertThat(reply.status()).isEqualTo(201);
    String jobId = id(reply.json());
    H2Reply fetched = send(HttpMethod.GET, "/jobs/" + jobId, null);
    assertThat(fetched.json().get("payload").get("blob").textValue()).isEqualTo(blob);
  }

  @Test
  void errorsWorkOverH2c() throws Exception {
    H2Reply notFound = send(HttpMethod.GET, "/nope", null);
    H2Reply badName = send(HttpMethod.POST, "/jobs", job("a,b", "t").toString());

    assertThat(notFound.status()).isEqualTo(404);
    assertThat(notFound.json().get("error").textValue()).isEqualTo("not found");
    assertThat(badName.status()).isEqualTo(400);
    assertThat(badName.json().get("error").textValue()).isEqualTo("queue must not contain ','");
  }

  @Test
  void acknowledgementOverH2cIsAnEmptyNoContent() throws Exception {
    Taken taken = server.takeOne(uniqueName("h2-ack"));
    try (taken) {
      H2Reply reply = send(HttpMethod.POST, "/jobs/" + taken.id() + "/success", null);

      assertThat(reply.version()).isEqualTo(HttpVersion.HTTP_2);
      assertThat(reply.status()).isEqualTo(204);
      assertThat(reply.body().length()).isZero();
    }
    assertThat(server.get("/jobs/" + taken.id()).status()).isEqualTo(404);
  }

  @Test
  void noContentResponseEndsOnItsHeadersFrameWithoutData() throws Exception {
    try (Taken taken = server.takeOne(uniqueName("h2-frames"));
        RawH2Connection h2 = new RawH2Connection(server.port())) {
      RawH2Connection.Exchange exchange = h2.request("POST", "/jobs/" + taken.id() + "/success");

      assertThat(exchange.status()).isEqualTo("204");
      assertThat(exchange.frames()).as("frames of the 204 stream")
          .noneMatch(frame -> frame.type() == RawH2Connection.DATA);
      assertThat(exchange.frames().get(exchange.frames().size() - 1).type())
          .isIn(RawH2Connection.HEADERS, RawH2Connection.CONTINUATION);
    }
  }

  @Test
  void rawClientSeesBodiesInDataFrames() throws Exception {
    // Guards the frame-level test above: the same client does see DATA when there is a body.
    try (RawH2Connection h2 = new RawH2Connection(server.port())) {
      RawH2Connection.Exchange exchange = h2.request("GET", "/health");

      assertThat(exchange.status()).isEqualTo("200");
      assertThat(exchange.frames()).anyMatch(frame -> frame.type() == RawH2Connection.DATA);
      assertThat(JSON.readTree(exchange.body()).get("status").textValue()).isEqualTo("ok");
    }
  }

  /** A take stream over h2c, decoded as NDJSON on the client's event loop. */
  final class H2Take {
    final BlockingQueue<JsonNode> jobs = new LinkedBlockingQueue<>();
    final AtomicInteger heartbeats = new AtomicInteger();
    final CompletableFuture<Void> ended = new CompletableFuture<>();
    final HttpClientRequest request;
    final HttpClientResponse response;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    H2Take(String query) throws Exception {
      CompletableFuture<HttpClientResponse> head = new CompletableFuture<>();
      // Sent from the event loop (see send) so the data handler is in place before any data.
      this.request = await(client.request(HttpMethod.GET, "/jobs/take?" + query)
          .onSuccess(sent -> sent.send().onComplete(ar -> {
            if (ar.failed()) {
              head.completeExceptionally(ar.cause());
              return;
            }
            HttpClientResponse r = ar.result();
            r.handler(this::onData);
            r.endHandler(v -> ended.complete(null));
            r.exceptionHandler(ended::completeExceptionally);
            head.complete(r);
          })));
      this.response = head.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void onData(Buffer buffer) {
      for (byte b : buffer.getBytes()) {
        if (b != '\n') {
          line.write(b);
          continue;
        }
        if (line.size() == 0) {
          heartbeats.incrementAndGet();
          continue;
        }
        try {
          jobs.add(JSON.readTree(line.toByteArray()));
        } catch (IOException e) {
          jobs.add(JSON.createObjectNode().put("unparsable", line.toString()));
        }
        line.reset();
      }
    }

    JsonNode nextJob() throws InterruptedException {
      JsonNode job = jobs.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(job).as("job over h2c within %s", TIMEOUT).isNotNull();
      return job;
    }

    void assertNoJobWithin(Duration window) throws InterruptedException {
      assertThat(jobs.poll(window.toMillis(), TimeUnit.MILLISECONDS)).isNull();
    }
  }

  @Test
  void takeStreamOverH2cDeliversJobsAndHonoursAcks() throws Exception {
    String queue = uniqueName("h2-take");
    String first = server.enqueueId(queue);
    String second = server.enqueueId(queue);

    H2Take take = new H2Take("queue=" + queue + "&prefetch=1");

    assertThat(take.response.version()).isEqualTo(HttpVersion.HTTP_2);
    assertThat(take.response.statusCode()).isEqualTo(200);
    assertThat(take.response.getHeader("Content-Type")).isEqualTo(ServerFixture.NDJSON_TYPE);
    JsonNode delivered = take.nextJob();
    assertThat(id(delivered)).isEqualTo(first);
    assertThat(delivered.get("status").textValue()).isEqualTo("in_flight");
    assertThat(delivered.get("payload")).isEqualTo(job(queue, "x").get("payload"));
    take.assertNoJobWithin(Duration.ofMillis(200));

    // Acknowledged over another stream of the same h2 connection.
    assertThat(send(HttpMethod.POST, "/jobs/" + first + "/success", null).status())
        .isEqualTo(204);
    assertThat(id(take.nextJob())).isEqualTo(second);
    assertThat(send(HttpMethod.POST, "/jobs/" + second + "/success", null).status())
        .isEqualTo(204);
    assertThat(take.ended).isNotDone();
  }

  @Test
  void takeStreamOverH2cGetsHeartbeats() throws Exception {
    H2Take take = new H2Take("queue=" + uniqueName("h2-hb"));

    ServerFixture.poll(take.heartbeats::get, n -> n >= 2, "two heartbeats over h2c");
  }

  @Test
  void closingTheH2ConnectionRequeuesTheJob() throws Exception {
    String queue = uniqueName("h2-close");
    String jobId = server.enqueueId(queue);
    H2Take take = new H2Take("queue=" + queue);
    assertThat(id(take.nextJob())).isEqualTo(jobId);

    await(client.close());

    server.awaitJob(jobId, j -> j.get("status").textValue().equals("ready"), "ready after close");
  }

  @Test
  void resettingTheTakeStreamRequeuesTheJob() throws Exception {
    String queue = uniqueName("h2-reset");
    String jobId = server.enqueueId(queue);
    H2Take take = new H2Take("queue=" + queue);
    assertThat(id(take.nextJob())).isEqualTo(jobId);

    take.request.reset();

    server.awaitJob(jobId, j -> j.get("status").textValue().equals("ready"), "ready after reset");
    // The connection itself is still usable.
    assertThat(send(HttpMethod.GET, "/health", null).status()).isEqualTo(200);
  }
}

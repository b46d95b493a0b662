package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.api.FuzzInputs;
import io.sluice.api.wire.Format;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;

/**
 * Fuzzes a real server through its socket: each request goes to one of the routes (take streams
 * aside), with path parameters, a query string and a body drawn by {@link FuzzInputs}, generated
 * or mutated, as JSON or MessagePack. Whatever is sent, the answer is never a 5xx, and every 4xx
 * carries a JSON error body. Requests per run come from {@code jqwik.tries.default}: 300 by
 * default, 5,000 under the Maven profile {@code long}.
 */
class RequestFuzzHttpTest {
  /** A route: its method, its path with {@code {}} for each parameter, and its body's shape. */
  private record Route(String method, String path, FuzzInputs.Obj body) {}

  private static final List<Route> ROUTES = List.of(
      new Route("POST", "/jobs", FuzzInputs.JOB),
      new Route("POST", "/jobs/bulk", FuzzInputs.BULK),
      new Route("GET", "/jobs", null),
      new Route("GET", "/jobs/count", null),
      new Route("DELETE", "/jobs", null),
      new Route("PATCH", "/jobs", FuzzInputs.PATCH),
      new Route("GET", "/jobs/{}", null),
      new Route("PATCH", "/jobs/{}", FuzzInputs.PATCH),
      new Route("DELETE", "/jobs/{}", null),
      new Route("GET", "/jobs/{}/errors", null),
      new Route("GET", "/jobs/{}/errors/{}", null),
      new Route("POST", "/jobs/{}/success", null),
      new Route("POST", "/jobs/success", FuzzInputs.ACK),
      new Route("POST", "/jobs/{}/failure", FuzzInputs.FAILURE),
      new Route("GET", "/queues", null),
      new Route("GET", "/budgets", null),
      new Route("GET", "/budgets/{}", null),
      new Route("POST", "/budgets/{}", FuzzInputs.POLICY),
      new Route("PUT", "/budgets/{}", FuzzInputs.POLICY),
      new Route("PATCH", "/budgets/{}", FuzzInputs.POLICY),
      new Route("DELETE", "/budgets/{}", null),
      new Route("PUT", "/jobs/{}/budgets", FuzzInputs.BINDINGS),
      new Route("POST", "/jobs/{}/budgets/{}", FuzzInputs.BINDING),
      new Route("PATCH", "/jobs/{}/budgets/{}", FuzzInputs.COST),
      new Route("DELETE", "/jobs/{}/budgets/{}", null),
      new Route("POST", "/jobs/budgets/{}", FuzzInputs.BINDING),
      new Route("PATCH", "/jobs/budgets/{}", FuzzInputs.COST),
      new Route("DELETE", "/jobs/budgets", null),
      new Route("GET", "/crons", null),
      new Route("PUT", "/crons/{}", FuzzInputs.GROUP),
      new Route("PATCH", "/crons/{}", FuzzInputs.GROUP),
      new Route("GET", "/crons/{}", null),
      new Route("POST", "/crons/{}/entries", FuzzInputs.ENTRY),
      new Route("PUT", "/crons/{}/entries/{}", FuzzInputs.ENTRY),
      new Route("PATCH", "/crons/{}/entries/{}", FuzzInputs.ENTRY),
      new Route("DELETE", "/crons/{}/entries/{}", null),
      new Route("GET", "/health", null),
      new Route("PUT", "/nowhere/{}", null));
  private static final List<String> CONTENT_TYPES = List.of("application/json",
      "application/msgpack", "text/plain");

  private static Path root;
  private static ServerFixture server;
  /** A job that exists, so that some requests reach an existing job. */
  private static String jobId;

  @BeforeContainer
  static void start() throws IOException {
    root = Files.createTempDirectory("sluice-http-fuzz-");
    server = ServerFixture.start(root);
    jobId = server.enqueueId("fuzz");
  }

  @AfterContainer
  static void stop() throws IOException {
    server.close();
    ServerFixture.deleteRecursively(root);
  }

  @Property(shrinking = ShrinkingMode.OFF)
  void noRequestIsAServerError(@ForAll long seed) {
    Random random = new Random(seed);
    FuzzInputs inputs = new FuzzInputs(random);
    Route route = ROUTES.get(random.nextInt(ROUTES.size()));
    StringBuilder target = new StringBuilder();
    String[] parts = route.path().split("\\{}", -1);
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        target.append(random.nextInt(4) == 0 ? jobId : inputs.segment());
      }
      target.append(parts[i]);
    }
    if (random.nextBoolean()) {
      target.append('?').append(inputs.query());
    }
    String contentType = null;
    byte[] body = null;
    if (route.body() != null && random.nextInt(10) != 0) {
      contentType = CONTENT_TYPES.get(random.nextInt(random.nextInt(5) == 0 ? 3 : 2));
      Format format = contentType.equals("application/msgpack") ? Format.MSGPACK : Format.JSON;
      body = FuzzInputs.encode(format, inputs.body(route.body()));
      if (random.nextBoolean()) {
        body = inputs.mutate(body);
      }
    }

    // A raw space would end the request target: HTTP framing, not the parsers, would refuse it.
    RawRequest reply = RawRequest.send(server.port(), route.method(),
        target.toString().replace(" ", "%20").getBytes(StandardCharsets.ISO_8859_1), contentType,
        body);

    String request = route.method() + " " + target;
    assertThat(reply.status()).as("%s -> %s", request, reply).isBetween(200, 499);
    if (reply.status() >= 400) {
      JsonNode error = parse(reply.body(), request);
      assertThat(error.has("error") || error.has("not_found")).as("%s -> %s", request, reply)
          .isTrue();
    }
    Statistics.collect(reply.status() / 100 + "xx");
  }

  private static JsonNode parse(String body, String request) {
    try {
      return ServerFixture.JSON.readTree(body);
    } catch (IOException e) {
      throw new AssertionError(request + " answered a body that is not JSON: " + body, e);
    }
  }
}

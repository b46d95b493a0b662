package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.toMsgpack;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code POST /jobs} and {@code POST /jobs/bulk} on valid input (API.md §3.4, §6, §8.2, §8.3). */
class EnqueueHttpTest {
  static final String ID_PATTERN = "[0-9a-z]{25}";
  static final Set<String> MINIMAL_ENQUEUE_FIELDS = Set.of(
      "id", "type", "queue", "priority", "status", "ready_at", "attempts", "duplicate", "folded");

  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  @Nested
  class SingleJson {
    @Test
    void createsReadyJobWithDefaults() {
      String queue = uniqueName("emails");
      long beforeMs = System.currentTimeMillis();

      Reply reply = server.postJson("/jobs", job(queue, "send_email"));

      long afterMs = System.currentTimeMillis();
      assertThat(reply.status()).isEqualTo(201);
      assertThat(reply.contentType()).isEqualTo("application/json");
      JsonNode created = reply.json();
      assertMinimalEnqueueShape(created, queue, "send_email");
      assertThat(created.get("ready_at").longValue()).isBetween(beforeMs, afterMs);
    }

    @Test
    void echoesOverridesButNeverThePayload() {
      ObjectNode request = job(uniqueName("overrides"), "report");
      request.put("priority", 7);
      request.put("retry_limit", 3);
      request.putObject("backoff").put("base_ms", 100).put("exponent", 2.0).put("jitter_ms", 5);
      request.putObject("retention").put("completed_ms", 1000);

      JsonNode created = server.enqueue(request);

      assertThat(created.get("priority").intValue()).isEqualTo(7);
      assertThat(created.get("retry_limit").intValue()).isEqualTo(3);
      JsonNode backoff = created.get("backoff");
      assertThat(backoff.get("base_ms").longValue()).isEqualTo(100);
      assertThat(backoff.get("exponent").doubleValue()).isEqualTo(2.0);
      assertThat(backoff.get("jitter_ms").longValue()).isEqualTo(5);
      assertThat(created.get("retention").get("completed_ms").longValue()).isEqualTo(1000);
      assertThat(created.get("retention").has("dead_ms")).isFalse();
      assertThat(created.has("payload")).isFalse();
      assertNoNulls(created);
    }

    @Test
    void emptyRetentionIsNormalisedAway() {
      ObjectNode request = job(uniqueName("retention"), "work");
      request.putObject("retention");

      JsonNode created = server.enqueue(request);

      assertThat(created.has("retention")).isFalse();
    }

    @Test
    void unknownFieldsAreIgnored() {
      ObjectNode request = job(uniqueName("unknown-fields"), "work");
      request.put("colour", "red");
      request.putObject("extra").put("nested", true);

      JsonNode created = server.enqueue(request);

      assertThat(created.has("colour")).isFalse();
      assertThat(created.get("status").textValue()).isEqualTo("ready");
    }

    @Test
    void futureReadyAtMakesTheJobScheduled() {
      long readyAtMs = System.currentTimeMillis() + 60_000;
      ObjectNode request = job(uniqueName("later"), "work");
      request.put("ready_at", readyAtMs);

      JsonNode created = server.enqueue(request);

      assertThat(created.get("status").textValue()).isEqualTo("scheduled");
      assertThat(created.get("ready_at").longValue()).isEqualTo(readyAtMs);
      JsonNode stored = server.getJob(id(created));
      assertThat(stored.get("status").textValue()).isEqualTo("scheduled");
      assertThat(stored.get("ready_at").longValue()).isEqualTo(readyAtMs);
    }

    @Test
    void pastReadyAtIsReadyAndKeepsTheGivenTime() {
      long readyAtMs = System.currentTimeMillis() - 60_000;
      ObjectNode request = job(uniqueName("earlier"), "work");
      request.put("ready_at", readyAtMs);

      JsonNode created = server.enqueue(request);

      assertThat(created.get("status").textValue()).isEqualTo("ready");
      assertThat(created.get("ready_at").longValue()).isEqualTo(readyAtMs);
    }

    @Test
    void largestReadyAtIsAcceptedAsScheduled() {
      ObjectNode request = job(uniqueName("far"), "work");
      request.put("ready_at", new BigInteger("18446744073709551615"));

      Reply reply = server.postJson("/jobs", request);

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      assertThat(reply.json().get("status").textValue()).isEqualTo("scheduled");
    }

    @Test
    void requestWithoutContentTypeIsReadAsJson() {
      String queue = uniqueName("no-content-type");
      byte[] body = job(queue, "work").toString().getBytes(StandardCharsets.UTF_8);

      Reply reply = server.send("POST", "/jobs", body);

      assertThat(reply.status()).isEqualTo(201);
      assertThat(reply.contentType()).isEqualTo("application/json");
      assertThat(reply.json().get("queue").textValue()).isEqualTo(queue);
    }

    @Test
    void contentTypeWithParametersIsStillJson() {
      String queue = uniqueName("charset");

      Reply reply = server.send("POST", "/jobs",
          job(queue, "work").toString().getBytes(StandardCharsets.UTF_8),
          "Content-Type", "application/json; charset=utf-8");

      assertThat(reply.status()).isEqualTo(201);
    }

    @Test
    void chunkedRequestBodyIsAccepted() throws Exception {
      String queue = uniqueName("chunked");
      byte[] body = job(queue, "work").toString().getBytes(StandardCharsets.UTF_8);
      // An InputStream publisher has no known length, so the body is sent chunked.
      HttpRequest request = HttpRequest.newBuilder(server.uri("/jobs"))
          .timeout(ServerFixture.TIMEOUT)
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofInputStream(
              () -> new ByteArrayInputStream(body)))
          .build();

      HttpResponse<String> response = HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1).build()
          .send(request, HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
      assertThat(JSON.readTree(response.body()).get("queue").textValue()).isEqualTo(queue);
    }

    @Test
    void idsStrictlyIncreaseInCreationOrder() {
      String queue = uniqueName("order");
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        ids.add(server.enqueueId(queue));
      }
      ObjectNode bulk = JSON.createObjectNode();
      ArrayNode jobs = bulk.putArray("jobs");
      for (int i = 0; i < 20; i++) {
        jobs.add(job(queue, "bulk-" + i));
      }
      Reply reply = server.postJson("/jobs/bulk", bulk);
      assertThat(reply.status()).isEqualTo(201);
      for (JsonNode created : reply.json().get("jobs")) {
        ids.add(id(created));
      }
      ids.add(server.enqueueId(queue));

      assertThat(ids).allMatch(id -> id.matches(ID_PATTERN));
      for (int i = 1; i < ids.size(); i++) {
        assertThat(ids.get(i)).as("id #%d after %s", i, ids.get(i - 1))
            .isGreaterThan(ids.get(i - 1));
      }
    }
  }

  /** A scheduled job's promotion, as the server's clock reaches its ready_at. */
  @Nested
  class OnAManualClock {
    @RegisterExtension
    static final ServerFixture manualServer = ServerFixture.perTestClassOnManualClock();

    @Test
    void scheduledJobIsDeliveredOnceItsTimeComes() {
      String queue = uniqueName("soon");
      long readyAtMs = manualServer.nowMs() + 300;
      ObjectNode request = job(queue, "work");
      request.put("ready_at", readyAtMs);
      String jobId = id(manualServer.enqueue(request));

      try (WorkerStream stream = manualServer.take("queue=" + queue)) {
        manualServer.advance(Duration.ofMillis(299));
        assertThat(manualServer.getJob(jobId).get("status").textValue())
            .as("a millisecond before ready_at").isEqualTo("scheduled");
        // Left to the engine's own timer: nothing but the wait it armed for ready_at wakes it.
        manualServer.advanceWithoutWaking(Duration.ofMillis(1));

        JsonNode delivered = stream.nextJob();

        assertThat(id(delivered)).isEqualTo(jobId);
        assertThat(delivered.get("dequeued_at").longValue()).as("promoted at ready_at")
            .isEqualTo(readyAtMs);
        assertThat(delivered.get("ready_at").longValue()).isEqualTo(readyAtMs);
        manualServer.ack(jobId);
      }
    }
  }

  @Nested
  class SingleMessagePack {
    @Test
    void createsJobWithMessagePackRequestAndResponse() {
      String queue = uniqueName("mp");
      long beforeMs = System.currentTimeMillis();

      Reply reply = server.postMsgpack("/jobs", toMsgpack(job(queue, "resize")));

      assertThat(reply.status()).isEqualTo(201);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      JsonNode created = reply.msgpack();
      assertMinimalEnqueueShape(created, queue, "resize");
      assertThat(created.get("ready_at").longValue()).isGreaterThanOrEqualTo(beforeMs);
    }

    @Test
    void payloadSentAsMessagePackReadsBackAsTheSameJsonValue() {
      ObjectNode request = job(uniqueName("mp-payload"), "resize");
      ObjectNode payload = request.putObject("payload");
      payload.put("name", "ünïcode ✓");
      payload.put("big", 1L << 40);
      payload.put("neg", -12);
      payload.put("ratio", 0.5);
      payload.put("ok", true);
      payload.putNull("nothing");
      payload.putArray("list").add(1).add("two").addObject().put("three", 3);

      Reply reply = server.postMsgpack("/jobs", toMsgpack(request));
      assertThat(reply.status()).isEqualTo(201);
      String jobId = id(reply.msgpack());

      assertThat(server.getJob(jobId).get("payload")).isEqualTo(payload);
      Reply asMsgpack = server.get("/jobs/" + jobId, "Accept", MSGPACK_TYPE);
      assertThat(asMsgpack.contentType()).isEqualTo(MSGPACK_TYPE);
      JsonNode fromMsgpack = asMsgpack.msgpack().get("payload");
      assertThat(fromMsgpack.get("name").textValue()).isEqualTo("ünïcode ✓");
      assertThat(fromMsgpack.get("big").longValue()).isEqualTo(1L << 40);
      assertThat(fromMsgpack.get("neg").intValue()).isEqualTo(-12);
      assertThat(fromMsgpack.get("ratio").doubleValue()).isEqualTo(0.5);
      assertThat(fromMsgpack.get("ok").booleanValue()).isTrue();
      assertThat(fromMsgpack.get("nothing").isNull()).isTrue();
      assertThat(fromMsgpack.get("list").get(2).get("three").intValue()).isEqualTo(3);
    }

    @Test
    void messagePackRequestWithoutAcceptGetsJsonResponse() {
      String queue = uniqueName("mp-in-json-out");

      Reply reply = server.send("POST", "/jobs", toMsgpack(job(queue, "work")),
          "Content-Type", MSGPACK_TYPE);

      assertThat(reply.status()).isEqualTo(201);
      assertThat(reply.contentType()).isEqualTo("application/json");
      assertThat(reply.json().get("queue").textValue()).isEqualTo(queue);
    }

    @Test
    void jsonRequestCanAskForMessagePackResponse() {
      String queue = uniqueName("json-in-mp-out");

      Reply reply = server.postJson("/jobs", job(queue, "work").toString(),
          "Accept", MSGPACK_TYPE);

      assertThat(reply.status()).isEqualTo(201);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(reply.msgpack().get("queue").textValue()).isEqualTo(queue);
    }
  }

  @Nested
  class Bulk {
    @Test
    void createsAllJobsInRequestOrder() {
      String queue = uniqueName("bulk");
      ObjectNode body = JSON.createObjectNode();
      ArrayNode jobs = body.putArray("jobs");
      jobs.add(job(queue, "first").put("priority", 9));
      jobs.add(job(queue, "second"));
      jobs.add(job(queue, "third").put("ready_at", System.currentTimeMillis() + 60_000));

      Reply reply = server.postJson("/jobs/bulk", body);

      assertThat(reply.status()).isEqualTo(201);
      JsonNode created = reply.json().get("jobs");
      assertThat(reply.json().size()).as("only `jobs` in %s", reply).isEqualTo(1);
      assertThat(created).hasSize(3);
      assertThat(created.get(0).get("type").textValue()).isEqualTo("first");
      assertThat(created.get(0).get("priority").intValue()).isEqualTo(9);
      assertThat(created.get(1).get("type").textValue()).isEqualTo("second");
      assertThat(created.get(1).get("status").textValue()).isEqualTo("ready");
      assertThat(created.get(2).get("type").textValue()).isEqualTo("third");
      assertThat(created.get(2).get("status").textValue()).isEqualTo("scheduled");
      for (JsonNode element : created) {
        assertThat(id(element)).matches(ID_PATTERN);
        assertThat(element.get("duplicate").booleanValue()).isFalse();
        assertThat(element.get("folded").booleanValue()).isFalse();
        assertThat(element.get("duplicate").isBoolean()).isTrue();
        assertThat(element.has("payload")).isFalse();
        assertNoNulls(element);
      }
      assertThat(id(created.get(1))).isGreaterThan(id(created.get(0)));
      assertThat(id(created.get(2))).isGreaterThan(id(created.get(1)));
      for (JsonNode element : created) {
        assertThat(server.getJob(id(element)).get("type"))
            .isEqualTo(element.get("type"));
      }
    }

    @Test
    void emptyListIsCreatedWithEmptyList() {
      Reply reply = server.postJson("/jobs/bulk", "{\"jobs\":[]}");

      assertThat(reply.status()).isEqualTo(201);
      assertThat(reply.json()).isEqualTo(JSON.createObjectNode().set("jobs",
          JSON.createArrayNode()));
    }

    @Test
    void worksInMessagePack() {
      String queue = uniqueName("bulk-mp");
      ObjectNode body = JSON.createObjectNode();
      body.putArray("jobs").add(job(queue, "a")).add(job(queue, "b"));

      Reply reply = server.postMsgpack("/jobs/bulk", toMsgpack(body));

      assertThat(reply.status()).isEqualTo(201);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      JsonNode created = reply.msgpack().get("jobs");
      assertThat(created).hasSize(2);
      assertMinimalEnqueueShape(created.get(0), queue, "a");
      assertMinimalEnqueueShape(created.get(1), queue, "b");
    }
  }

  @Nested
  class LargeBodies {
    @Test
    void fourMegabytePayloadRoundTrips() {
      String queue = uniqueName("large");
      String blob = "x".repeat(4 << 20);
      ObjectNode request = job(queue, "large");
      request.putObject("payload").put("blob", blob);

      JsonNode created = server.enqueue(request);
      String jobId = id(created);

      assertThat(server.getJob(jobId).get("payload").get("blob").textValue()).isEqualTo(blob);
      try (WorkerStream stream = server.take("queue=" + queue)) {
        JsonNode delivered = stream.nextJob();
        assertThat(id(delivered)).isEqualTo(jobId);
        assertThat(delivered.get("payload").get("blob").textValue()).isEqualTo(blob);
        server.ack(jobId);
      }
    }

    @Test
    void sixtyFourMebibyteBodyOfMegabyteStringsIsAccepted() {
      String queue = uniqueName("huge");
      byte[] head = ("{\"type\":\"huge\",\"queue\":\"" + queue + "\",\"payload\":[")
          .getBytes(StandardCharsets.UTF_8);
      int strings = 64;
      int stringBytes = 1 << 20; // each element: quote, 1 MiB - 3 letters, quote, comma or ']'
      byte[] body = new byte[head.length + strings * stringBytes + 1];
      System.arraycopy(head, 0, body, 0, head.length);
      for (int i = 0; i < strings; i++) {
        int at = head.length + i * stringBytes;
        body[at] = '"';
        Arrays.fill(body, at + 1, at + stringBytes - 2, (byte) 'y');
        body[at + stringBytes - 2] = '"';
        body[at + stringBytes - 1] = (byte) (i == strings - 1 ? ']' : ',');
      }
      body[body.length - 1] = '}';
      assertThat(body.length).isGreaterThan(64 << 20);

      Reply reply = server.send("POST", "/jobs", body, "Content-Type", "application/json");

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      assertThat(reply.json().get("queue").textValue()).isEqualTo(queue);
    }

    @Test
    void sixtyFourMebibyteBodyWithOneLargeStringIsAccepted() {
      String queue = uniqueName("huge");
      String prefix = "{\"type\":\"huge\",\"queue\":\"" + queue + "\",\"payload\":{\"blob\":\"";
      String suffix = "\"}}";
      int fill = (64 << 20) - prefix.length() - suffix.length();
      byte[] body = new byte[64 << 20];
      byte[] head = prefix.getBytes(StandardCharsets.UTF_8);
      byte[] tail = suffix.getBytes(StandardCharsets.UTF_8);
      System.arraycopy(head, 0, body, 0, head.length);
      Arrays.fill(body, head.length, head.length + fill, (byte) 'y');
      System.arraycopy(tail, 0, body, head.length + fill, tail.length);

      Reply reply = server.send("POST", "/jobs", body, "Content-Type", "application/json");

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      String jobId = id(reply.json());
      assertThat(server.getJob(jobId).get("payload").get("blob").textValue()).hasSize(fill);
    }
  }

  /** The enqueue response of a job given only type, queue and payload. */
  static void assertMinimalEnqueueShape(JsonNode created, String queue, String type) {
    assertThat(fieldNames(created)).isEqualTo(new TreeSet<>(MINIMAL_ENQUEUE_FIELDS));
    assertThat(id(created)).matches(ID_PATTERN);
    assertThat(created.get("type").textValue()).isEqualTo(type);
    assertThat(created.get("queue").textValue()).isEqualTo(queue);
    assertThat(created.get("priority").isIntegralNumber()).isTrue();
    assertThat(created.get("priority").intValue()).isEqualTo(32768);
    assertThat(created.get("status").textValue()).isEqualTo("ready");
    assertThat(created.get("ready_at").isIntegralNumber()).isTrue();
    assertThat(created.get("attempts").isIntegralNumber()).isTrue();
    assertThat(created.get("attempts").intValue()).isZero();
    assertThat(created.get("duplicate").isBoolean()).isTrue();
    assertThat(created.get("duplicate").booleanValue()).isFalse();
    assertThat(created.get("folded").isBoolean()).isTrue();
    assertThat(created.get("folded").booleanValue()).isFalse();
  }

  static TreeSet<String> fieldNames(JsonNode node) {
    TreeSet<String> names = new TreeSet<>();
    Iterator<String> it = node.fieldNames();
    it.forEachRemaining(names::add);
    return names;
  }

  /** Optional fields are omitted, never null (API.md §6.1). */
  static void assertNoNulls(JsonNode node) {
    node.fields().forEachRemaining(field -> {
      assertThat(field.getValue().isNull()).as("field %s is null in %s", field.getKey(), node)
          .isFalse();
      if (field.getValue().isObject()) {
        assertNoNulls(field.getValue());
      }
    });
  }
}

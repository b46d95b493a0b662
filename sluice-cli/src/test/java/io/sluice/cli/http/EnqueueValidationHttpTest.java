package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.toMsgpack;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Rejected enqueues (API.md §3.1, §3.2, §3.5, §3.7, §8.2, §8.3): each gets the right 4xx with an
 * {@code {"error": …}} body and stores nothing. After every test the server must hold no ready
 * job in any queue, which {@link ServerFixture#assertNothingReady} proves with a sentinel.
 */
class EnqueueValidationHttpTest {
  static final String QUEUE = "valid-queue";

  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  @AfterEach
  void nothingWasStored() {
    server.assertNothingReady(null);
  }

  /** Asserts a 4xx JSON error whose body is exactly {@code {"error": message}}. */
  static String assertJsonError(Reply reply, int status) {
    assertThat(reply.status()).as("%s", reply).isEqualTo(status);
    assertThat(reply.contentType()).isEqualTo("application/json");
    JsonNode body = reply.json();
    assertThat(body.size()).as("only `error` in %s", body).isEqualTo(1);
    return reply.error();
  }

  @Nested
  class MalformedJson {
    @ParameterizedTest
    @ValueSource(strings = {
      "{\"type\":\"t\",",
      "not json",
      "[1,2]",
      "\"a string\"",
      "null",
      "{\"type\":\"t\",\"queue\":\"q\",\"payload\":{}",
      "{\"type\":\"t\",\"queue\":\"q\",\"payload\":}"
    })
    void undecodableBodyIsInvalidJson(String body) {
      Reply reply = server.postJson("/jobs", body);

      assertThat(assertJsonError(reply, 400)).startsWith("invalid JSON: ");
    }

    @Test
    void trailingGarbageAfterTheDocumentIsInvalidJson() {
      Reply reply = server.postJson("/jobs", job(QUEUE, "work") + " trailing");

      assertThat(assertJsonError(reply, 400)).startsWith("invalid JSON: ");
    }

    @Test
    void emptyBodyIsInvalidJson() {
      Reply reply = server.send("POST", "/jobs", new byte[0], "Content-Type", "application/json");

      assertThat(assertJsonError(reply, 400)).startsWith("invalid JSON: ");
    }
  }

  @Nested
  class MissingAndMistypedFields {
    static Stream<Arguments> badJobs() {
      return Stream.of(
          Arguments.of("missing type", "{\"queue\":\"q\",\"payload\":1}", "type"),
          Arguments.of("missing queue", "{\"type\":\"t\",\"payload\":1}", "queue"),
          Arguments.of("missing payload", "{\"type\":\"t\",\"queue\":\"q\"}", "payload"),
          Arguments.of("numeric type", "{\"type\":5,\"queue\":\"q\",\"payload\":1}", "type"),
          Arguments.of("boolean queue", "{\"type\":\"t\",\"queue\":true,\"payload\":1}", "queue"),
          Arguments.of("null type", "{\"type\":null,\"queue\":\"q\",\"payload\":1}", "type"),
          Arguments.of("string priority",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"priority\":\"high\"}", "priority"),
          Arguments.of("fractional priority",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"priority\":1.5}", "priority"),
          Arguments.of("priority 65536",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"priority\":65536}", "priority"),
          Arguments.of("priority -1",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"priority\":-1}", "priority"),
          Arguments.of("priority 70000",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"priority\":70000}", "priority"),
          Arguments.of("string ready_at",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"ready_at\":\"soon\"}", "ready_at"),
          Arguments.of("ready_at 2^64",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,"
                  + "\"ready_at\":18446744073709551616}", "ready_at"),
          Arguments.of("negative ready_at",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"ready_at\":-5}", "ready_at"),
          Arguments.of("negative retry_limit",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"retry_limit\":-1}", "retry_limit"),
          Arguments.of("backoff without exponent",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,"
                  + "\"backoff\":{\"base_ms\":1,\"jitter_ms\":1}}", "exponent"),
          Arguments.of("retention not an object",
              "{\"type\":\"t\",\"queue\":\"q\",\"payload\":1,\"retention\":\"x\"}", "retention"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badJobs")
    void isInvalidJsonNamingTheField(String what, String body, String field) {
      Reply reply = server.postJson("/jobs", body);

      String error = assertJsonError(reply, 400);
      assertThat(error).startsWith("invalid JSON: ").contains(field);
    }

    @Test
    void priorityBoundsAreInclusive() {
      // The accepted extremes, taken back out so the after-each check sees an empty server.
      String queue = ServerFixture.uniqueName("bounds");
      String low = id(server.enqueue(job(queue, "t").put("priority", 0)));
      String high = id(server.enqueue(job(queue, "t").put("priority", 65535)));
      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=0")) {
        JsonNode first = stream.nextJob();
        JsonNode second = stream.nextJob();
        assertThat(id(first)).isEqualTo(low);
        assertThat(first.get("priority").intValue()).isZero();
        assertThat(id(second)).isEqualTo(high);
        assertThat(second.get("priority").intValue()).isEqualTo(65535);
        server.ack(low);
        server.ack(high);
      }
    }
  }

  @Nested
  class Names {
    static Stream<Arguments> badNames() {
      return Stream.of(
          Arguments.of("type", "", "type must not be empty"),
          Arguments.of("queue", "", "queue must not be empty"),
          Arguments.of("type", "a,b", "type must not contain ','"),
          Arguments.of("queue", "a,b", "queue must not contain ','"),
          Arguments.of("type", "a\u0000b", "type must not contain null bytes"),
          Arguments.of("queue", "a\u0000b", "queue must not contain null bytes"),
          Arguments.of("queue", "a*b", "queue must not contain '*' (reserved)"),
          Arguments.of("type", "{x", "type must not contain '{' (reserved)"),
          Arguments.of("queue", "x?", "queue must not contain '?' (reserved)"),
          Arguments.of("queue", "[x", "queue must not contain '[' (reserved)"),
          Arguments.of("queue", "x]", "queue must not contain ']' (reserved)"),
          Arguments.of("queue", "x}", "queue must not contain '}' (reserved)"),
          Arguments.of("queue", "a\\b", "queue must not contain '\\' (reserved)"),
          Arguments.of("queue", "ok}then*", "queue must not contain '}' (reserved)"));
    }

    @ParameterizedTest(name = "{0} \"{1}\"")
    @MethodSource("badNames")
    void badNameIsRejectedWithItsRule(String field, String value, String message) {
      ObjectNode request = job(QUEUE, "work");
      request.put(field, value);

      Reply reply = server.postJson("/jobs", request);

      assertThat(assertJsonError(reply, 400)).isEqualTo(message);
    }

    @Test
    void namesMayContainSpacesSlashesAndUnicode() {
      String queue = "emails / ünïcode " + ServerFixture.uniqueName("q");
      JsonNode created = server.enqueue(job(queue, "send email"));

      assertThat(created.get("queue").textValue()).isEqualTo(queue);
      String jobId = id(created);
      try (WorkerStream stream = server.take("queue="
          + URLEncoder.encode(queue, StandardCharsets.UTF_8))) {
        assertThat(id(stream.nextJob())).isEqualTo(jobId);
        server.ack(jobId);
      }
    }
  }

  @Nested
  class UniqueAndBatch {
    @Test
    void uniqueWhileRequiresUniqueKey() {
      Reply reply = server.postJson("/jobs", job(QUEUE, "work").put("unique_while", "queued"));

      assertThat(assertJsonError(reply, 400)).isEqualTo("unique_while requires unique_key");
    }

    @Test
    void uniqueKeyCannotBeCombinedWithBatch() {
      ObjectNode request = job(QUEUE, "work").put("unique_key", "k");
      request.putObject("batch").put("key", "b").put("when", "size >= 2").put("fold", ".");

      Reply reply = server.postJson("/jobs", request);

      assertThat(assertJsonError(reply, 400)).isEqualTo("unique_key and batch cannot be combined");
    }

    @Test
    void unknownUniqueWhileIsRejected() {
      ObjectNode request = job(QUEUE, "work").put("unique_key", "k").put("unique_while", "forever");

      Reply reply = server.postJson("/jobs", request);

      assertThat(assertJsonError(reply, 400)).isEqualTo(
          "invalid unique_while: \"forever\" (expected \"queued\", \"active\", or \"exists\")");
    }

    @Test
    void nameRulesAreCheckedBeforeUniqueRules() {
      ObjectNode request = job("", "work").put("unique_while", "queued");

      Reply reply = server.postJson("/jobs", request);

      assertThat(assertJsonError(reply, 400)).isEqualTo("queue must not be empty");
    }
  }

  @Nested
  class MessagePackBodies {
    @Test
    void binPayloadIsRejected() {
      byte[] body = packJob(packer -> {
        packer.packBinaryHeader(3);
        packer.writePayload(new byte[] {1, 2, 3});
      });

      Reply reply = server.postMsgpack("/jobs", body);

      assertMsgpackError(reply);
    }

    @Test
    void extPayloadIsRejected() {
      byte[] body = packJob(packer -> {
        packer.packExtensionTypeHeader((byte) 1, 2);
        packer.writePayload(new byte[] {9, 9});
      });

      Reply reply = server.postMsgpack("/jobs", body);

      assertMsgpackError(reply);
    }

    @Test
    void nonStringMapKeyInPayloadIsRejected() {
      byte[] body = packJob(packer -> {
        packer.packMapHeader(1);
        packer.packInt(7);
        packer.packString("seven");
      });

      Reply reply = server.postMsgpack("/jobs", body);

      assertMsgpackError(reply);
    }

    @Test
    void nonStringKeyInTheJobObjectIsRejected() throws IOException {
      MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
      packer.packMapHeader(4);
      packer.packString("type").packString("t");
      packer.packString("queue").packString(QUEUE);
      packer.packString("payload").packNil();
      packer.packBoolean(true).packString("odd key");

      Reply reply = server.postMsgpack("/jobs", packer.toByteArray());

      assertMsgpackError(reply);
    }

    @Test
    void truncatedDocumentIsRejected() {
      byte[] whole = toMsgpack(job(QUEUE, "work"));
      byte[] truncated = Arrays.copyOf(whole, whole.length - 3);

      Reply reply = server.postMsgpack("/jobs", truncated);

      assertMsgpackError(reply);
    }

    @Test
    void missingFieldIsReportedAsInvalidMessagePack() {
      ObjectNode request = job(QUEUE, "work");
      request.remove("payload");

      Reply reply = server.postMsgpack("/jobs", toMsgpack(request));

      assertMsgpackError(reply);
    }

    @Test
    void outOfRangePriorityIsReportedAsInvalidMessagePack() {
      Reply reply = server.postMsgpack("/jobs", toMsgpack(job(QUEUE, "w").put("priority", 65536)));

      assertMsgpackError(reply);
    }

    @Test
    void errorIsJsonWhenOnlyTheRequestIsMessagePack() {
      ObjectNode request = job(QUEUE, "work");
      request.remove("type");

      Reply reply = server.send("POST", "/jobs", toMsgpack(request), "Content-Type", MSGPACK_TYPE);

      assertThat(assertJsonError(reply, 400)).startsWith("invalid MessagePack: ");
    }

    private void assertMsgpackError(Reply reply) {
      assertThat(reply.status()).as("%s", reply).isEqualTo(400);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      JsonNode body = reply.msgpack();
      assertThat(body.size()).as("only `error` in %s", body).isEqualTo(1);
      assertThat(body.get("error").textValue()).startsWith("invalid MessagePack: ");
    }
  }

  @Nested
  class Bulk {
    @Test
    void oneBadNameAmongGoodJobsRejectsThemAll() {
      ObjectNode body = JSON.createObjectNode();
      body.putArray("jobs")
          .add(job(QUEUE, "one"))
          .add(job(QUEUE, "two"))
          .add(job("", "three"))
          .add(job(QUEUE, "four"));

      Reply reply = server.postJson("/jobs/bulk", body);

      assertThat(assertJsonError(reply, 400)).isEqualTo("jobs[2]: queue must not be empty");
    }

    @Test
    void firstFailingJobIsTheOneReported() {
      ObjectNode body = JSON.createObjectNode();
      body.putArray("jobs")
          .add(job(QUEUE, "one"))
          .add(job(QUEUE, "two").put("unique_while", "active"))
          .add(job(QUEUE, "a,b"));

      Reply reply = server.postJson("/jobs/bulk", body);

      assertThat(assertJsonError(reply, 400))
          .isEqualTo("jobs[1]: unique_while requires unique_key");
    }

    @Test
    void undecodableJobNamesItsIndex() {
      ObjectNode body = JSON.createObjectNode();
      ArrayNode jobs = body.putArray("jobs");
      jobs.add(job(QUEUE, "one"));
      jobs.add(job(QUEUE, "two").put("priority", 70000));

      Reply reply = server.postJson("/jobs/bulk", body);

      assertThat(assertJsonError(reply, 400)).contains("jobs[1]: ").contains("priority");
    }

    @Test
    void badJobInMessagePackBulkRejectsThemAll() {
      ObjectNode body = JSON.createObjectNode();
      body.putArray("jobs").add(job(QUEUE, "one")).add(job(QUEUE, "t*"));

      Reply reply = server.postMsgpack("/jobs/bulk", toMsgpack(body));

      assertThat(reply.status()).isEqualTo(400);
      assertThat(reply.msgpack().get("error").textValue())
          .isEqualTo("jobs[1]: type must not contain '*' (reserved)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{}", "{\"jobs\":{}}", "{\"jobs\":\"x\"}", "[]"})
    void malformedBulkEnvelopeIsInvalidJson(String body) {
      Reply reply = server.postJson("/jobs/bulk", body);

      assertThat(assertJsonError(reply, 400)).startsWith("invalid JSON: ");
    }

    @Test
    void jobThatIsNotAnObjectIsNamedByItsIndex() {
      Reply reply = server.postJson("/jobs/bulk", "{\"jobs\":[1]}");

      assertThat(assertJsonError(reply, 400)).startsWith("jobs[0]: invalid JSON: ");
    }
  }

  @Nested
  class Negotiation {
    @Test
    void unacceptableResponseTypeIsNotAcceptable() {
      Reply reply = server.postJson("/jobs", job(QUEUE, "work").toString(),
          "Accept", "text/plain");

      assertThat(reply.status()).isEqualTo(406);
      assertThat(reply.contentType()).isEqualTo("application/json");
      assertThat(reply.json()).isEqualTo(supportedError("not acceptable"));
    }

    @Test
    void unsupportedBodyTypeIsUnsupportedMediaType() {
      byte[] body = job(QUEUE, "work").toString().getBytes(StandardCharsets.UTF_8);

      Reply reply = server.send("POST", "/jobs", body, "Content-Type", "text/plain");

      assertThat(reply.status()).isEqualTo(415);
      assertThat(reply.contentType()).isEqualTo("application/json");
      assertThat(reply.json()).isEqualTo(supportedError("unsupported media type"));
    }

    @Test
    void unsupportedMediaTypeAnswersInMessagePackWhenAccepted() {
      byte[] body = job(QUEUE, "work").toString().getBytes(StandardCharsets.UTF_8);

      Reply reply = server.send("POST", "/jobs", body,
          "Content-Type", "text/plain", "Accept", MSGPACK_TYPE);

      assertThat(reply.status()).isEqualTo(415);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(reply.msgpack()).isEqualTo(supportedError("unsupported media type"));
    }

    @Test
    void bulkWithUnacceptableResponseTypeStoresNothing() {
      ObjectNode body = JSON.createObjectNode();
      body.putArray("jobs").add(job(QUEUE, "one"));

      Reply reply = server.postJson("/jobs/bulk", body.toString(), "Accept", "text/html");

      assertThat(reply.status()).isEqualTo(406);
      assertThat(reply.json()).isEqualTo(supportedError("not acceptable"));
    }

    @Test
    void acceptMatchingIsCaseSensitiveSubstring() {
      // "Application/JSON" is not a case-sensitive match for either supported type.
      Reply reply = server.get("/health", "Accept", "Application/JSON");

      assertThat(reply.status()).isEqualTo(406);
    }

    @Test
    void wildcardAcceptGetsJson() {
      Reply reply = server.get("/version", "Accept", "text/html, */*;q=0.1");

      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.contentType()).isEqualTo("application/json");
    }

    @Test
    void messagePackWinsWhenBothAreAccepted() {
      Reply reply = server.get("/version", "Accept", "application/json;q=0.9, application/msgpack");

      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(reply.msgpack().get("version").textValue()).isEqualTo("0.7.0");
    }

    private JsonNode supportedError(String message) {
      ObjectNode error = JSON.createObjectNode().put("error", message);
      error.putArray("supported").add("application/json").add(MSGPACK_TYPE);
      return error;
    }
  }

  @FunctionalInterface
  interface PayloadPacker {
    void pack(MessageBufferPacker packer) throws IOException;
  }

  /** A MessagePack enqueue body whose payload is written by {@code payload}. */
  static byte[] packJob(PayloadPacker payload) {
    try (MessageBufferPacker packer = MessagePack.newDefaultBufferPacker()) {
      packer.packMapHeader(3);
      packer.packString("type").packString("work");
      packer.packString("queue").packString(QUEUE);
      packer.packString("payload");
      payload.pack(packer);
      return packer.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

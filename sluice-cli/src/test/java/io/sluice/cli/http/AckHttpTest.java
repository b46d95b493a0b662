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
import io.sluice.cli.http.ServerFixture.Taken;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code POST /jobs/{id}/success} and {@code POST /jobs/success} (API.md §4.4, §8.5, §8.6). */
class AckHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static String notInFlight() {
    return ServerFixture.JSON.createObjectNode()
        .put("error", "job not found in in-flight set").toString();
  }

  /**
   * {@code {"<name>": [values…]}}: the {@code ids} of a bulk acknowledgement, or the
   * {@code not_found} list of its answer.
   */
  static ObjectNode stringList(String name, String... values) {
    ObjectNode body = JSON.createObjectNode();
    ArrayNode list = body.putArray(name);
    for (String value : values) {
      list.add(value);
    }
    return body;
  }

  @Nested
  class Single {
    @Test
    void completesInFlightJobWithEmptyNoContent() {
      try (Taken taken = server.takeOne(uniqueName("ack"))) {
        Reply reply = server.post("/jobs/" + taken.id() + "/success");

        assertThat(reply.status()).isEqualTo(204);
        assertThat(reply.body()).isEmpty();
      }
    }

    @Test
    void secondAckIsNotFound() {
      try (Taken taken = server.takeOne(uniqueName("ack-twice"))) {
        server.ack(taken.id());

        Reply reply = server.post("/jobs/" + taken.id() + "/success");

        assertThat(reply.status()).isEqualTo(404);
        assertThat(reply.json().toString()).isEqualTo(notInFlight());
      }
    }

    @Test
    void completedJobWithDefaultRetentionIsGone() {
      Taken taken = server.takeOne(uniqueName("ack-gone"));
      try (taken) {
        server.ack(taken.id());
      }

      Reply job = server.get("/jobs/" + taken.id());
      assertThat(job.status()).isEqualTo(404);
      assertThat(job.error()).isEqualTo("job not found");
      Reply errors = server.get("/jobs/" + taken.id() + "/errors");
      assertThat(errors.status()).isEqualTo(404);
      assertThat(errors.error()).isEqualTo("job not found");
    }

    @Test
    void completedJobWithRetentionStaysVisibleAsCompleted() {
      ObjectNode request = job(uniqueName("ack-retained"), "keep");
      request.putObject("retention").put("completed_ms", 60_000);
      long beforeMs;
      long afterMs;
      Taken taken = server.takeOne(request);
      try (taken) {
        beforeMs = System.currentTimeMillis();
        server.ack(taken.id());
        afterMs = System.currentTimeMillis();
      }

      JsonNode completed = server.getJob(taken.id());
      assertThat(completed.get("status").textValue()).isEqualTo("completed");
      long completedAtMs = completed.get("completed_at").longValue();
      assertThat(completedAtMs).isBetween(beforeMs, afterMs);
      assertThat(completed.get("purge_at").longValue()).isEqualTo(completedAtMs + 60_000);
      assertThat(completed.get("payload")).isEqualTo(request.get("payload"));
      Reply again = server.post("/jobs/" + taken.id() + "/success");
      assertThat(again.status()).isEqualTo(404);
      assertThat(again.error()).isEqualTo("job not found in in-flight set");
    }

    @Test
    void readyJobIsNotInFlight() {
      String jobId = server.enqueueId(uniqueName("ack-ready"));

      Reply reply = server.post("/jobs/" + jobId + "/success");

      assertThat(reply.status()).isEqualTo(404);
      assertThat(reply.json().toString()).isEqualTo(notInFlight());
      assertThat(server.getJob(jobId).get("status").textValue()).isEqualTo("ready");
    }

    @ParameterizedTest
    @ValueSource(strings = {
      "zzzzzzzzzzzzzzzzzzzzzzzzz", "03gsa8rjaoxgqgnrsnlt7niqb", "nope", "%2F"
    })
    void unknownIdIsNotFound(String rawId) {
      Reply reply = server.post("/jobs/" + rawId + "/success");

      assertThat(reply.status()).isEqualTo(404);
      assertThat(reply.json().toString()).isEqualTo(notInFlight());
    }

    @Test
    void bodyAndItsContentTypeAreIgnored() {
      try (Taken taken = server.takeOne(uniqueName("ack-body"))) {
        Reply reply = server.send("POST", "/jobs/" + taken.id() + "/success",
            "whatever".getBytes(StandardCharsets.UTF_8), "Content-Type", "text/plain");

        assertThat(reply.status()).isEqualTo(204);
      }
    }

    @Test
    void ackFreesThePrefetchSlot() {
      String queue = uniqueName("ack-slot");
      String first = server.enqueueId(queue);
      String second = server.enqueueId(queue);
      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=1")) {
        assertThat(id(stream.nextJob())).isEqualTo(first);
        stream.assertNoJobWithin(Duration.ofMillis(150));
        server.ack(first);
        assertThat(id(stream.nextJob())).isEqualTo(second);
        server.ack(second);
      }
    }
  }

  @Nested
  class Bulk {
    @Test
    void completesInFlightJobsAndReportsTheRestInRequestOrder() {
      String queue = uniqueName("bulk-ack");
      String first = server.enqueueId(queue);
      String second = server.enqueueId(queue);
      String readyElsewhere = server.enqueueId(uniqueName("bulk-ack-ready"));
      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=0")) {
        assertThat(stream.nextJobs(2)).extracting(ServerFixture::id).containsExactly(first, second);
        ObjectNode body =
            stringList("ids", "unknown-b", first, readyElsewhere, second, "unknown-a");

        Reply reply = server.postJson("/jobs/success", body);

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.contentType()).isEqualTo("application/json");
        assertThat(reply.json())
            .isEqualTo(stringList("not_found", "unknown-b", readyElsewhere, "unknown-a"));
      }
      assertThat(server.get("/jobs/" + first).status()).isEqualTo(404);
      assertThat(server.get("/jobs/" + second).status()).isEqualTo(404);
      assertThat(server.post("/jobs/" + first + "/success").status()).isEqualTo(404);
      assertThat(server.getJob(readyElsewhere).get("status").textValue()).isEqualTo("ready");
    }

    @Test
    void allInFlightIsNoContent() {
      String queue = uniqueName("bulk-ack-all");
      List<String> ids = List.of(server.enqueueId(queue), server.enqueueId(queue));
      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=0")) {
        stream.nextJobs(2);

        Reply reply = server.postJson("/jobs/success", stringList("ids", ids.get(0), ids.get(1)));

        assertThat(reply.status()).isEqualTo(204);
        assertThat(reply.body()).isEmpty();
      }
      for (String jobId : ids) {
        assertThat(server.get("/jobs/" + jobId).status()).isEqualTo(404);
      }
    }

    @Test
    void bulkAckFreesPrefetchSlots() {
      String queue = uniqueName("bulk-ack-slots");
      List<String> ids = List.of(server.enqueueId(queue), server.enqueueId(queue),
          server.enqueueId(queue), server.enqueueId(queue));
      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=2")) {
        assertThat(stream.nextJobs(2)).extracting(ServerFixture::id)
            .containsExactlyElementsOf(ids.subList(0, 2));
        stream.assertNoJobWithin(Duration.ofMillis(150));
        ObjectNode body = stringList("ids", ids.get(0), ids.get(1));
        assertThat(server.postJson("/jobs/success", body).status()).isEqualTo(204);

        assertThat(stream.nextJobs(2)).extracting(ServerFixture::id)
            .containsExactlyElementsOf(ids.subList(2, 4));
        server.ack(ids.get(2));
        server.ack(ids.get(3));
      }
    }

    @Test
    void notFoundListIsMessagePackWhenAsked() {
      Reply reply = server.postMsgpack("/jobs/success", toMsgpack(stringList("ids", "gone")));

      assertThat(reply.status()).isEqualTo(422);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(reply.msgpack()).isEqualTo(stringList("not_found", "gone"));
    }

    @Test
    void emptyIdListIsBadRequest() {
      Reply reply = server.postJson("/jobs/success", "{\"ids\":[]}");

      assertThat(reply.status()).isEqualTo(400);
      assertThat(reply.json()).isEqualTo(
          JSON.createObjectNode().put("error", "ids must not be empty"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
      "{}", "{\"ids\":\"abc\"}", "{\"ids\":[1,2]}", "[\"abc\"]", "{\"ids\":["
    })
    void malformedBodyIsInvalidJson(String body) {
      Reply reply = server.postJson("/jobs/success", body);

      assertThat(reply.status()).isEqualTo(400);
      assertThat(reply.error()).startsWith("invalid JSON: ");
    }
  }
}

package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.toMsgpack;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code POST /jobs/{id}/success} and {@code POST /jobs/success} (API.md §4.4, §8.5, §8.6). */
class AckHttpTest {
  @TempDir static Path tempDir;
  static ServerFixture server;

  @BeforeAll
  static void startServer() {
    server = ServerFixture.start(tempDir);
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  static String id(JsonNode job) {
    return job.get("id").textValue();
  }

  static String notInFlight() {
    return ServerFixture.JSON.createObjectNode()
        .put("error", "job not found in in-flight set").toString();
  }

  @Nested
  class Single {
    @Test
    void completesInFlightJobWithEmptyNoContent() {
      String queue = uniqueName("ack");
      String jobId = server.enqueueId(queue);
      try (WorkerStream stream = server.take("queue=" + queue)) {
        assertThat(id(stream.nextJob())).isEqualTo(jobId);

        Reply reply = server.post("/jobs/" + jobId + "/success");

        assertThat(reply.status()).isEqualTo(204);
        assertThat(reply.body()).isEmpty();
      }
    }

    @Test
    void secondAckIsNotFound() {
      String queue = uniqueName("ack-twice");
      String jobId = server.enqueueId(queue);
      try (WorkerStream stream = server.take("queue=" + queue)) {
        assertThat(id(stream.nextJob())).isEqualTo(jobId);
        server.ack(jobId);

        Reply reply = server.post("/jobs/" + jobId + "/success");

        assertThat(reply.status()).isEqualTo(404);
        assertThat(reply.json().toString()).isEqualTo(notInFlight());
      }
    }

    @Test
    void completedJobWithDefaultRetentionIsGone() {
      String queue = uniqueName("ack-gone");
      String jobId = server.enqueueId(queue);
      try (WorkerStream stream = server.take("queue=" + queue)) {
        assertThat(id(stream.nextJob())).isEqualTo(jobId);
        server.ack(jobId);
      }

      Reply job = server.get("/jobs/" + jobId);
      assertThat(job.status()).isEqualTo(404);
      assertThat(job.error()).isEqualTo("job not found");
      Reply errors = server.get("/jobs/" + jobId + "/errors");
      assertThat(errors.status()).isEqualTo(404);
      assertThat(errors.error()).isEqualTo("job not found");
    }

    @Test
    void completedJobWithRetentionStaysVisibleAsCompleted() {
      String queue = uniqueName("ack-retained");
      ObjectNode request = job(queue, "keep");
      request.putObject("retention").put("completed_ms", 60_000);
      String jobId = id(server.enqueue(request));
      long beforeMs;
      long afterMs;
      try (WorkerStream stream = server.take("queue=" + queue)) {
        assertThat(id(stream.nextJob())).isEqualTo(jobId);
        beforeMs = System.currentTimeMillis();
        server.ack(jobId);
        afterMs = System.currentTimeMillis();
      }

      JsonNode completed = server.getJob(jobId);
      assertThat(completed.get("status").textValue()).isEqualTo("completed");
      long completedAtMs = completed.get("completed_at").longValue();
      assertThat(completedAtMs).isBetween(beforeMs, afterMs);
      assertThat(completed.get("purge_at").longValue()).isEqualTo(completedAtMs + 60_000);
      assertThat(completed.get("payload")).isEqualTo(request.get("payload"));
      Reply again = server.post("/jobs/" + jobId + "/success");
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
      String queue = uniqueName("ack-body");
      String jobId = server.enqueueId(queue);
      try (WorkerStream stream = server.take("queue=" + queue)) {
        assertThat(id(stream.nextJob())).isEqualTo(jobId);

        Reply reply = server.send("POST", "/jobs/" + jobId + "/success",
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
        assertThat(stream.nextJobs(2)).extracting(AckHttpTest::id).containsExactly(first, second);
        ObjectNode body = JSON.createObjectNode();
        body.putArray("ids").add("unknown-b").add(first).add(readyElsewhere).add(second)
            .add("unknown-a");

        Reply reply = server.postJson("/jobs/success", body);

        assertThat(reply.status()).isEqualTo(422);
        assertThat(reply.contentType()).isEqualTo("application/json");
        ObjectNode expected = JSON.createObjectNode();
        expected.putArray("not_found").add("unknown-b").add(readyElsewhere).add("unknown-a");
        assertThat(reply.json()).isEqualTo(expected);
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
        ObjectNode body = JSON.createObjectNode();
        body.putArray("ids").add(ids.get(0)).add(ids.get(1));

        Reply reply = server.postJson("/jobs/success", body);

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
        assertThat(stream.nextJobs(2)).extracting(AckHttpTest::id)
            .containsExactlyElementsOf(ids.subList(0, 2));
        stream.assertNoJobWithin(Duration.ofMillis(150));
        ObjectNode body = JSON.createObjectNode();
        body.putArray("ids").add(ids.get(0)).add(ids.get(1));
        assertThat(server.postJson("/jobs/success", body).status()).isEqualTo(204);

        assertThat(stream.nextJobs(2)).extracting(AckHttpTest::id)
            .containsExactlyElementsOf(ids.subList(2, 4));
        server.ack(ids.get(2));
        server.ack(ids.get(3));
      }
    }

    @Test
    void notFoundListIsMessagePackWhenAsked() {
      ObjectNode body = JSON.createObjectNode();
      body.putArray("ids").add("gone");

      Reply reply = server.postMsgpack("/jobs/success", toMsgpack(body));

      assertThat(reply.status()).isEqualTo(422);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      ObjectNode expected = JSON.createObjectNode();
      expected.putArray("not_found").add("gone");
      assertThat(reply.msgpack()).isEqualTo(expected);
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

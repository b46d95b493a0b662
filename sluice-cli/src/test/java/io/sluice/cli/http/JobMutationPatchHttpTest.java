package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.binding;
import static io.sluice.cli.http.BudgetClient.bindingCreating;
import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.QueryClient.count;
import static io.sluice.cli.http.QueryClient.enc;
import static io.sluice.cli.http.QueryClient.listIds;
import static io.sluice.cli.http.QueryClient.listedJob;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.toMsgpack;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.cli.http.ServerFixture.Taken;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code PATCH /jobs/{id}} (API.md §8.16) and {@code PATCH /jobs} (§8.17): merge-patch semantics,
 * re-positioning for dispatch, status changes through {@code ready_at}, and the 4xx answers.
 * Each test uses queues of its own.
 */
class JobMutationPatchHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static final long HOUR_MS = 3_600_000;

  static ObjectNode patch() {
    return JSON.createObjectNode();
  }

  static ObjectNode failure(String message) {
    return JSON.createObjectNode().put("message", message);
  }

  /** PATCH /jobs/{id} asserting 200 and the without-payload shape; returns the job. */
  static JsonNode patchOk(String jobId, JsonNode body) {
    return patchOk(server, jobId, body);
  }

  static JsonNode patchOk(ServerFixture on, String jobId, JsonNode body) {
    Reply reply = on.patchJson("/jobs/" + jobId, body);
    assertThat(reply.status()).as("PATCH /jobs/%s %s -> %s", jobId, body, reply).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/json");
    JsonNode job = reply.json();
    assertThat(id(job)).isEqualTo(jobId);
    assertThat(job.has("payload")).as("payload in %s", job).isFalse();
    assertThat(job.has("duplicate")).isFalse();
    assertThat(job.has("folded")).isFalse();
    EnqueueHttpTest.assertNoNulls(job);
    return job;
  }

  /** GET /jobs/{id} without its payload, to compare with a PATCH answer. */
  static JsonNode stored(String jobId) {
    ObjectNode job = (ObjectNode) server.getJob(jobId);
    job.remove("payload");
    return job;
  }

  /** PATCH /jobs?<query> asserting 200; returns {@code patched}. */
  static long patchMatching(String query, JsonNode body) {
    Reply reply = server.patchJson("/jobs?" + query, body);
    assertThat(reply.status()).as("PATCH /jobs?%s %s -> %s", query, body, reply).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/json");
    JsonNode answer = reply.json();
    assertThat(answer.size()).as("only `patched` in %s", answer).isEqualTo(1);
    assertThat(answer.get("patched").isIntegralNumber()).isTrue();
    return answer.get("patched").longValue();
  }

  /** Takes {@code n} jobs from {@code queue} one at a time, acknowledging each; their ids. */
  static List<String> drain(String queue, int n) {
    List<String> order = new ArrayList<>();
    try (WorkerStream stream = server.take("queue=" + enc(queue) + "&prefetch=1")) {
      for (int i = 0; i < n; i++) {
        String next = id(stream.nextJob());
        order.add(next);
        server.ack(next);
      }
      stream.assertNoJobWithin(Duration.ofMillis(50));
    }
    return order;
  }

  static ObjectNode withOverrides(String queue) {
    ObjectNode request = job(queue, "configured");
    request.put("retry_limit", 3);
    request.putObject("backoff").put("base_ms", 100).put("exponent", 2.0).put("jitter_ms", 5);
    request.putObject("retention").put("completed_ms", 1000).put("dead_ms", 2000);
    return request;
  }

  static String completedJob(String queue) {
    ObjectNode request = job(queue, "done");
    request.putObject("retention").put("completed_ms", 60_000);
    try (Taken taken = server.takeOne(request)) {
      server.ack(taken.id());
      return taken.id();
    }
  }

  static String deadJob(String queue) {
    try (Taken taken = server.takeOne(queue)) {
      server.fail(taken.id(), failure("fatal").put("kill", true));
      return taken.id();
    }
  }

  @Nested
  class Single {
    @Test
    void emptyPatchReturnsTheJobUnchanged() {
      String jobId = id(server.enqueue(withOverrides(uniqueName("patch-empty"))));
      JsonNode before = stored(jobId);

      JsonNode answer = patchOk(jobId, patch());

      assertThat(answer).isEqualTo(before);
      assertThat(stored(jobId)).isEqualTo(before);
    }

    @Test
    void answerIsTheUpdatedJobWithoutPayload() {
      ObjectNode request = job(uniqueName("patch-shape"), "work");
      request.putObject("payload").put("keep", "me");
      String jobId = id(server.enqueue(request));

      JsonNode answer = patchOk(jobId, patch().put("priority", 7));

      assertThat(answer.get("priority").intValue()).isEqualTo(7);
      assertThat(answer.get("status").textValue()).isEqualTo("ready");
      assertThat(answer).isEqualTo(stored(jobId));
      assertThat(server.getJob(jobId).get("payload")).isEqualTo(request.get("payload"));
    }

    @Test
    void priorityChangeRepositionsForDispatch() {
      String queue = uniqueName("patch-priority");
      String first = server.enqueueId(queue);
      String second = server.enqueueId(queue);
      String third = server.enqueueId(queue);

      patchOk(third, patch().put("priority", 1));
      patchOk(first, patch().put("priority", 65535));

      assertThat(drain(queue, 3)).containsExactly(third, second, first);
    }

    @Test
    void queueChangeMovesTheJobAndRepositionsIt() {
      String from = uniqueName("patch-queue-from");
      String to = uniqueName("patch-queue-to");
      String resident = id(server.enqueue(job(to, "resident").put("priority", 100)));
      String moved = id(server.enqueue(job(from, "mover").put("priority", 5)));

      JsonNode answer = patchOk(moved, patch().put("queue", to));

      assertThat(answer.get("queue").textValue()).isEqualTo(to);
      assertThat(listIds(server, "queue=" + from)).isEmpty();
      assertThat(listIds(server, "queue=" + to)).containsExactly(resident, moved);
      assertThat(drain(to, 2)).containsExactly(moved, resident);
      server.assertNothingReady(from);
    }

    @Test
    void priorityChangeRepositionsInsideABudget() {
      String key = uniqueName("patch-budget-order");
      String queue = uniqueName("patch-budget-order");
      new BudgetClient(server).define(key, whileInFlight(1));
      try (Taken holder = server.takeOne(boundJob(uniqueName("patch-budget-holder"),
          binding(key)))) {
        String first = id(server.enqueue(boundJob(queue, binding(key))));
        String second = id(server.enqueue(boundJob(queue, binding(key))));
        String third = id(server.enqueue(boundJob(queue, binding(key))));

        patchOk(third, patch().put("priority", 1));
        server.ack(holder.id());

        assertThat(drain(queue, 3)).containsExactly(third, first, second);
      }
    }

    @Test
    void idleStreamReceivesAJobMadeReadyByPatch() {
      String queue = uniqueName("patch-wake-ready");
      String jobId = id(server.enqueue(
          job(queue, "later").put("ready_at", System.currentTimeMillis() + HOUR_MS)));
      try (WorkerStream stream = server.take("queue=" + queue)) {
        stream.assertNoJobWithin(Duration.ofMillis(100));

        patchOk(jobId, patch().putNull("ready_at"));

        assertThat(id(stream.nextJob(Duration.ofSeconds(2)))).isEqualTo(jobId);
        server.ack(jobId);
      }
    }

    @Test
    void idleStreamReceivesAJobMovedIntoItsQueue() {
      String from = uniqueName("patch-wake-from");
      String to = uniqueName("patch-wake-to");
      String jobId = server.enqueueId(from);
      try (WorkerStream stream = server.take("queue=" + to)) {
        stream.assertNoJobWithin(Duration.ofMillis(100));

        patchOk(jobId, patch().put("queue", to));

        assertThat(id(stream.nextJob(Duration.ofSeconds(2)))).isEqualTo(jobId);
        server.ack(jobId);
      }
    }

    @Test
    void streamNeverReceivesAJobScheduledByPatch() {
      String queue = uniqueName("patch-unready");
      String held = server.enqueueId(queue);
      String other = server.enqueueId(queue);
      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=1")) {
        assertThat(id(stream.nextJob())).isEqualTo(held);

        patchOk(other, patch().put("ready_at", System.currentTimeMillis() + HOUR_MS));
        server.ack(held);

        stream.assertNoJobWithin(Duration.ofMillis(300));
      }
      assertThat(stored(other).get("status").textValue()).isEqualTo("scheduled");
    }

    @Test
    void futureReadyAtSchedulesAReadyJob() {
      String queue = uniqueName("patch-schedule");
      String jobId = server.enqueueId(queue);
      long readyAtMs = System.currentTimeMillis() + HOUR_MS;

      JsonNode answer = patchOk(jobId, patch().put("ready_at", readyAtMs));

      assertThat(answer.get("status").textValue()).isEqualTo("scheduled");
      assertThat(answer.get("ready_at").longValue()).isEqualTo(readyAtMs);
      assertThat(listedJob(server, jobId).get("status").textValue()).isEqualTo("scheduled");
      server.assertNothingReady(queue);
    }

    @Test
    void pastReadyAtMakesAScheduledJobReady() {
      String queue = uniqueName("patch-unschedule");
      String jobId = id(server.enqueue(
          job(queue, "later").put("ready_at", System.currentTimeMillis() + HOUR_MS)));

      JsonNode answer = patchOk(jobId, patch().put("ready_at", 5000));

      assertThat(answer.get("status").textValue()).isEqualTo("ready");
      assertThat(answer.get("ready_at").longValue()).isEqualTo(5000);
      assertThat(count(server, "queue=" + queue + "&status=ready&ready_at=5000")).isEqualTo(1);
      assertThat(drain(queue, 1)).containsExactly(jobId);
    }

    @Test
    void nullReadyAtMakesAScheduledJobReadyNow() {
      String queue = uniqueName("patch-ready-now");
      String jobId = id(server.enqueue(
          job(queue, "later").put("ready_at", System.currentTimeMillis() + HOUR_MS)));
      long beforeMs = System.currentTimeMillis();

      JsonNode answer = patchOk(jobId, patch().putNull("ready_at"));

      long afterMs = System.currentTimeMillis();
      assertThat(answer.get("status").textValue()).isEqualTo("ready");
      assertThat(answer.get("ready_at").longValue()).isBetween(beforeMs, afterMs);
      assertThat(drain(queue, 1)).containsExactly(jobId);
    }

    @Test
    void nullReadyAtOnAReadyJobChangesNothing() {
      String jobId = id(server.enqueue(job(uniqueName("patch-null-ready"), "w")
          .put("ready_at", 1234)));
      JsonNode before = stored(jobId);

      JsonNode answer = patchOk(jobId, patch().putNull("ready_at"));

      assertThat(answer).isEqualTo(before);
      assertThat(answer.get("ready_at").longValue()).isEqualTo(1234);
    }

    @Test
    void inFlightJobKeepsItsStatus() {
      try (Taken taken = server.takeOne(uniqueName("patch-in-flight"))) {
        long readyAtMs = System.currentTimeMillis() + HOUR_MS;

        JsonNode answer = patchOk(taken.id(),
            patch().put("ready_at", readyAtMs).put("priority", 3).put("retry_limit", 0));

        assertThat(answer.get("status").textValue()).isEqualTo("in_flight");
        assertThat(answer.get("ready_at").longValue()).isEqualTo(readyAtMs);
        assertThat(answer.get("priority").intValue()).isEqualTo(3);
        assertThat(answer.get("dequeued_at").longValue()).isEqualTo(taken.dequeuedAtMs());
        assertThat(stored(taken.id())).isEqualTo(answer);
        assertThat(count(server, "id=" + taken.id() + "&status=in_flight")).isEqualTo(1);
        JsonNode failed = server.fail(taken.id(), failure("no retries left"));
        assertThat(failed.get("status").textValue()).as("retry_limit 0 applies").isEqualTo("dead");
      }
    }

    @Test
    void nullsResetOverridesAndRetentionMerges() {
      String jobId = id(server.enqueue(withOverrides(uniqueName("patch-nulls"))));

      JsonNode noLimit = patchOk(jobId, patch().putNull("retry_limit"));
      assertThat(noLimit.has("retry_limit")).isFalse();
      assertThat(noLimit.has("backoff")).isTrue();

      JsonNode noBackoff = patchOk(jobId, patch().putNull("backoff"));
      assertThat(noBackoff.has("backoff")).isFalse();

      ObjectNode clearCompleted = patch();
      clearCompleted.putObject("retention").putNull("completed_ms");
      assertThat(patchOk(jobId, clearCompleted).get("retention"))
          .isEqualTo(JSON.createObjectNode().put("dead_ms", 2000));

      ObjectNode setCompleted = patch();
      setCompleted.putObject("retention").put("completed_ms", 5);
      assertThat(patchOk(jobId, setCompleted).get("retention"))
          .isEqualTo(JSON.createObjectNode().put("completed_ms", 5).put("dead_ms", 2000));

      ObjectNode clearBoth = patch();
      clearBoth.putObject("retention").putNull("completed_ms").putNull("dead_ms");
      JsonNode noRetention = patchOk(jobId, clearBoth);
      assertThat(noRetention.has("retention")).as("empty retention normalised away").isFalse();

      assertThat(EnqueueHttpTest.fieldNames(stored(jobId))).containsExactlyInAnyOrder("id",
          "type", "queue", "priority", "status", "ready_at", "attempts");
    }

    @Test
    void nullRetentionClearsTheWholeOverride() {
      String jobId = id(server.enqueue(withOverrides(uniqueName("patch-null-retention"))));

      JsonNode answer = patchOk(jobId, patch().putNull("retention"));

      assertThat(answer.has("retention")).isFalse();
      assertThat(answer.get("retry_limit").intValue()).isEqualTo(3);
    }

    @Test
    void setsOverrides() {
      String jobId = server.enqueueId(uniqueName("patch-set"));
      ObjectNode body = patch().put("retry_limit", 9);
      body.putObject("backoff").put("base_ms", 7).put("exponent", 1.5).put("jitter_ms", 0);
      body.putObject("retention").put("dead_ms", 10);

      JsonNode answer = patchOk(jobId, body);

      assertThat(answer.get("retry_limit").intValue()).isEqualTo(9);
      assertThat(answer.get("backoff").get("base_ms").longValue()).isEqualTo(7);
      assertThat(answer.get("backoff").get("exponent").doubleValue()).isEqualTo(1.5);
      assertThat(answer.get("backoff").get("jitter_ms").longValue()).isZero();
      assertThat(answer.get("retention")).isEqualTo(JSON.createObjectNode().put("dead_ms", 10));
      assertThat(stored(jobId)).isEqualTo(answer);
    }

    @Test
    void budgetsFieldIsIgnored() {
      String key = uniqueName("patch-budget");
      String jobId = id(server.enqueue(boundJob(uniqueName("patch-budget"),
          bindingCreating(key, whileInFlight(3)))));
      ObjectNode body = patch().put("priority", 2);
      body.putArray("budgets");

      JsonNode answer = patchOk(jobId, body);

      assertThat(answer.get("budgets")).isEqualTo(BudgetClient.echoed(key, 1));
      assertThat(answer.get("priority").intValue()).isEqualTo(2);
    }

    @Test
    void messagePackPatch() {
      String jobId = server.enqueueId(uniqueName("patch-msgpack"));

      Reply reply = server.send("PATCH", "/jobs/" + jobId,
          toMsgpack(patch().put("priority", 42)), "Content-Type", MSGPACK_TYPE,
          "Accept", MSGPACK_TYPE);

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(reply.msgpack().get("priority").intValue()).isEqualTo(42);
      assertThat(reply.msgpack()).isEqualTo(stored(jobId));
    }

    @Test
    void completedJobCannotBePatched() {
      String jobId = completedJob(uniqueName("patch-completed"));
      JsonNode before = stored(jobId);

      for (JsonNode body : List.of(patch().put("priority", 1), patch())) {
        BudgetClient.assertError(server.patchJson("/jobs/" + jobId, body), 422,
            "cannot patch job " + jobId + " in completed status");
      }
      assertThat(stored(jobId)).isEqualTo(before);
    }

    @Test
    void deadJobCannotBePatched() {
      String jobId = deadJob(uniqueName("patch-dead"));

      BudgetClient.assertError(server.patchJson("/jobs/" + jobId, patch().putNull("ready_at")),
          422, "cannot patch job " + jobId + " in dead status");
      assertThat(stored(jobId).get("status").textValue()).isEqualTo("dead");
    }

    @Test
    void nullQueueOrPriorityIsUnprocessable() {
      String jobId = server.enqueueId(uniqueName("patch-null-queue"));
      JsonNode before = stored(jobId);

      BudgetClient.assertError(server.patchJson("/jobs/" + jobId, patch().putNull("queue")),
          422, "queue cannot be null");
      BudgetClient.assertError(server.patchJson("/jobs/" + jobId, patch().putNull("priority")),
          422, "priority cannot be null");
      assertThat(stored(jobId)).isEqualTo(before);
    }

    @Test
    void badQueueNameIsUnprocessable() {
      String jobId = server.enqueueId(uniqueName("patch-bad-queue"));
      JsonNode before = stored(jobId);

      BudgetClient.assertError(server.patchJson("/jobs/" + jobId, patch().put("queue", "")),
          422, "queue must not be empty");
      BudgetClient.assertError(server.patchJson("/jobs/" + jobId, patch().put("queue", "a,b")),
          422, "queue must not contain ','");
      BudgetClient.assertError(server.patchJson("/jobs/" + jobId, patch().put("queue", "a*b")),
          422, "queue must not contain '*' (reserved)");
      BudgetClient.assertError(server.patchJson("/jobs/" + jobId,
          patch().put("queue", "a\u0000b")), 422, "queue must not contain null bytes");
      assertThat(stored(jobId)).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {
      "{\"backoff\":{\"base_ms\":1,\"exponent\":2.0}}",
      "{\"backoff\":{\"exponent\":2.0,\"jitter_ms\":1}}",
      "{\"backoff\":{\"base_ms\":1,\"jitter_ms\":1}}",
      "{\"backoff\":{}}",
      "{\"priority\":70000}",
      "{\"priority\":-1}",
      "{\"retry_limit\":\"x\"}",
      "{\"queue\":5}",
      "not json",
      "[]"
    })
    void undecodableBodyIsBadRequest(String body) {
      String jobId = id(server.enqueue(withOverrides(uniqueName("patch-bad-body"))));
      JsonNode before = stored(jobId);

      Reply reply = server.patchJson("/jobs/" + jobId, body);

      assertThat(reply.status()).as("%s", reply).isEqualTo(400);
      assertThat(reply.error()).isNotEmpty();
      assertThat(stored(jobId)).isEqualTo(before);
    }

    @Test
    void malformedJsonSaysSo() {
      String jobId = server.enqueueId(uniqueName("patch-malformed"));

      BudgetClient.assertErrorStartingWith(server.patchJson("/jobs/" + jobId, "{\"priority\":"),
          400, "invalid JSON: ");
      BudgetClient.assertErrorStartingWith(
          server.patchJson("/jobs/" + jobId, "{\"priority\":70000}"), 400, "invalid JSON: ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0000000000000000000000000", "nope"})
    void unknownJobIsNotFound(String rawId) {
      BudgetClient.assertError(server.patchJson("/jobs/" + rawId, patch().put("priority", 1)),
          404, "job not found");
    }

    @Test
    void deletedJobIsNotFound() {
      String jobId = server.enqueueId(uniqueName("patch-deleted"));
      assertThat(server.delete("/jobs/" + jobId).status()).isEqualTo(204);

      BudgetClient.assertError(server.patchJson("/jobs/" + jobId, patch()), 404, "job not found");
    }
  }

  /** Patches whose effect shows as the server's clock reaches an instant. */
  @Nested
  class OnAManualClock {
    @RegisterExtension
    static final ServerFixture manualServer = ServerFixture.perTestClassOnManualClock();

    static String status(String jobId) {
      return manualServer.getJob(jobId).get("status").textValue();
    }

    @Test
    void scheduledJobMovedToAnotherQueueIsPromotedThere() {
      String from = uniqueName("patch-scheduled-from");
      String to = uniqueName("patch-scheduled-to");
      long readyAtMs = manualServer.nowMs() + 300;
      String jobId = id(manualServer.enqueue(job(from, "later").put("ready_at", readyAtMs)));

      JsonNode answer = patchOk(manualServer, jobId, patch().put("queue", to));

      assertThat(answer.get("status").textValue()).isEqualTo("scheduled");
      try (WorkerStream stream = manualServer.take("queue=" + to)) {
        manualServer.advance(Duration.ofMillis(299));
        assertThat(status(jobId)).as("a millisecond before ready_at").isEqualTo("scheduled");
        manualServer.advance(Duration.ofMillis(1));

        JsonNode delivered = stream.nextJob();
        assertThat(id(delivered)).isEqualTo(jobId);
        assertThat(delivered.get("queue").textValue()).isEqualTo(to);
        assertThat(delivered.get("dequeued_at").longValue()).isEqualTo(readyAtMs);
        manualServer.ack(jobId);
      }
      manualServer.assertNothingReady(from);
    }

    @Test
    void earlierFutureReadyAtIsHonoured() {
      String queue = uniqueName("patch-sooner");
      String jobId = id(manualServer.enqueue(
          job(queue, "later").put("ready_at", manualServer.nowMs() + HOUR_MS)));
      long soonMs = manualServer.nowMs() + 300;

      JsonNode answer = patchOk(manualServer, jobId, patch().put("ready_at", soonMs));

      assertThat(answer.get("status").textValue()).isEqualTo("scheduled");
      try (WorkerStream stream = manualServer.take("queue=" + queue)) {
        manualServer.advance(Duration.ofMillis(299));
        assertThat(status(jobId)).as("a millisecond before ready_at").isEqualTo("scheduled");
        manualServer.advance(Duration.ofMillis(1));

        JsonNode delivered = stream.nextJob();
        assertThat(id(delivered)).isEqualTo(jobId);
        assertThat(delivered.get("dequeued_at").longValue()).isEqualTo(soonMs);
        manualServer.ack(jobId);
      }
    }

    @Test
    void jobPastPurgeAtIsNotFound() {
      manualServer.runReaperNow();
      ObjectNode request = job(uniqueName("patch-purged"), "brief");
      request.putObject("retention").put("completed_ms", 1);
      String jobId;
      try (Taken taken = manualServer.takeOne(request)) {
        manualServer.ack(taken.id());
        jobId = taken.id();
      }
      assertThat(status(jobId)).as("before purge_at").isEqualTo("completed");
      manualServer.advance(Duration.ofMillis(1));

      BudgetClient.assertError(manualServer.patchJson("/jobs/" + jobId, patch()), 404,
          "job not found");
    }
  }

  @Nested
  class Bulk {
    @Test
    void patchesExactlyTheMatchingJobs() {
      String queue = uniqueName("bulk-patch");
      String typeA = uniqueName("bulk-patch-ta");
      String typeB = uniqueName("bulk-patch-tb");
      List<String> a = new ArrayList<>();
      List<String> b = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        ObjectNode request = job(queue, typeA);
        request.putObject("payload").put("n", i);
        a.add(id(server.enqueue(request)));
        ObjectNode other = job(queue, typeB);
        other.putObject("payload").put("m", i);
        b.add(id(server.enqueue(other)));
      }

      assertThat(patchMatching("queue=" + queue + "&type=" + typeA, patch().put("priority", 5)))
          .isEqualTo(3);

      assertThat(listIds(server, "queue=" + queue + "&priority=5")).containsExactlyElementsOf(a);
      assertThat(listIds(server, "queue=" + queue + "&priority=32768"))
          .containsExactlyElementsOf(b);

      assertThat(patchMatching("queue=" + queue + "&filter=" + enc(".n >= 1"),
          patch().put("retry_limit", 1))).isEqualTo(2);
      assertThat(listIds(server, "queue=" + queue).stream()
          .filter(jobId -> stored(jobId).has("retry_limit")).toList())
          .containsExactly(a.get(1), a.get(2));

      assertThat(patchMatching("id=" + b.get(0) + "," + a.get(0) + "&type=" + typeB,
          patch().put("priority", 9))).isEqualTo(1);
      assertThat(stored(b.get(0)).get("priority").intValue()).isEqualTo(9);
      assertThat(stored(a.get(0)).get("priority").intValue()).isEqualTo(5);
    }

    @Test
    void nothingMatchingPatchesNothing() {
      String queue = uniqueName("bulk-patch-none");
      server.enqueueId(queue);

      assertThat(patchMatching("queue=" + queue + "&priority=0", patch().put("priority", 1)))
          .isZero();
      assertThat(patchMatching("queue=" + uniqueName("bulk-patch-empty"),
          patch().put("priority", 1))).isZero();
      assertThat(count(server, "queue=" + queue + "&priority=32768")).isEqualTo(1);
    }

    @Test
    void repositionsForDispatch() {
      String queue = uniqueName("bulk-patch-order");
      List<String> j = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        j.add(server.enqueueId(queue));
      }

      assertThat(patchMatching("id=" + j.get(2) + "," + j.get(3), patch().put("priority", 1)))
          .isEqualTo(2);

      assertThat(drain(queue, 4)).containsExactly(j.get(2), j.get(3), j.get(0), j.get(1));
    }

    @Test
    void idleStreamReceivesJobsMovedIntoItsQueue() {
      String from = uniqueName("bulk-patch-wake-from");
      String to = uniqueName("bulk-patch-wake-to");
      String first = server.enqueueId(from);
      String second = server.enqueueId(from);
      try (WorkerStream stream = server.take("queue=" + to + "&prefetch=0")) {
        stream.assertNoJobWithin(Duration.ofMillis(100));

        assertThat(patchMatching("queue=" + from, patch().put("queue", to))).isEqualTo(2);

        assertThat(stream.nextJobs(2)).extracting(ServerFixture::id)
            .containsExactly(first, second);
        server.ack(first);
        server.ack(second);
      }
    }

    @Test
    void movesJobsToAnotherQueue() {
      String from = uniqueName("bulk-patch-from");
      String to = uniqueName("bulk-patch-to");
      String first = server.enqueueId(from);
      String second = server.enqueueId(from);

      assertThat(patchMatching("queue=" + from, patch().put("queue", to))).isEqualTo(2);

      assertThat(count(server, "queue=" + from)).isZero();
      assertThat(drain(to, 2)).containsExactly(first, second);
    }

    @Test
    void readyAtMovesJobsBetweenReadyAndScheduled() {
      String queue = uniqueName("bulk-patch-ready-at");
      String first = server.enqueueId(queue);
      String second = server.enqueueId(queue);
      long laterMs = System.currentTimeMillis() + HOUR_MS;

      assertThat(patchMatching("queue=" + queue + "&status=ready", patch().put("ready_at",
          laterMs))).isEqualTo(2);
      assertThat(listIds(server, "queue=" + queue + "&status=scheduled"))
          .containsExactly(first, second);
      server.assertNothingReady(queue);

      assertThat(patchMatching("queue=" + queue + "&status=scheduled&id=" + first,
          patch().putNull("ready_at"))).isEqualTo(1);

      assertThat(listIds(server, "queue=" + queue + "&status=ready")).containsExactly(first);
      assertThat(drain(queue, 1)).containsExactly(first);
      assertThat(stored(second).get("status").textValue()).isEqualTo("scheduled");
    }

    @Test
    void terminalJobsAreSkippedSilently() {
      String queue = uniqueName("bulk-patch-terminal");
      String completed = completedJob(queue);
      String dead = deadJob(queue);
      String ready = server.enqueueId(queue);
      String scheduled = id(server.enqueue(
          job(queue, "later").put("ready_at", System.currentTimeMillis() + HOUR_MS)));
      JsonNode completedBefore = stored(completed);
      JsonNode deadBefore = stored(dead);

      assertThat(patchMatching("queue=" + queue, patch().put("priority", 1))).isEqualTo(2);

      assertThat(stored(completed)).isEqualTo(completedBefore);
      assertThat(stored(dead)).isEqualTo(deadBefore);
      assertThat(listIds(server, "queue=" + queue + "&priority=1"))
          .containsExactly(ready, scheduled);
    }

    @Test
    void inFlightJobsArePatched() {
      String queue = uniqueName("bulk-patch-in-flight");
      try (Taken taken = server.takeOne(queue)) {
        String waiting = server.enqueueId(queue);

        assertThat(patchMatching("queue=" + queue, patch().put("priority", 4))).isEqualTo(2);

        assertThat(stored(taken.id()).get("status").textValue()).isEqualTo("in_flight");
        assertThat(listIds(server, "queue=" + queue + "&priority=4"))
            .containsExactly(taken.id(), waiting);
        server.ack(taken.id());
      }
    }

    @Test
    void explicitTerminalStatusIsRejected() {
      String queue = uniqueName("bulk-patch-status");
      String completed = completedJob(queue);
      String ready = server.enqueueId(queue);

      BudgetClient.assertError(server.patchJson("/jobs?queue=" + queue + "&status=completed",
          patch().put("priority", 1)), 422, "cannot patch jobs in completed status");
      BudgetClient.assertError(server.patchJson("/jobs?queue=" + queue + "&status=ready,dead",
          patch().put("priority", 1)), 422, "cannot patch jobs in dead status");

      assertThat(stored(completed).get("priority").intValue()).isEqualTo(32768);
      assertThat(stored(ready).get("priority").intValue()).isEqualTo(32768);
    }

    @Test
    void badRequestsPatchNothing() {
      String queue = uniqueName("bulk-patch-bad");
      String jobId = server.enqueueId(queue);
      String scope = "/jobs?queue=" + queue + "&";
      ObjectNode body = patch().put("priority", 1);

      BudgetClient.assertError(server.patchJson(scope + "id=nope", body), 400,
          "invalid job ID: \"nope\"");
      BudgetClient.assertError(server.patchJson(scope + "status=gone", body), 400,
          "invalid query parameters: unknown status: gone");
      BudgetClient.assertError(server.patchJson(scope + "attempts=2..1", body), 400,
          "invalid query parameters: range lower bound exceeds upper bound");
      BudgetClient.assertErrorStartingWith(server.patchJson(scope + "filter=.%5B", body), 400,
          "invalid filter: ");
      for (String unknown : List.of("bogus=1", "limit=1", "order=desc")) {
        BudgetClient.assertErrorStartingWith(server.patchJson(scope + unknown, body), 400,
            "invalid query parameters: ");
      }
      BudgetClient.assertError(server.patchJson(scope.substring(0, scope.length() - 1),
          patch().putNull("queue")), 422, "queue cannot be null");
      BudgetClient.assertError(server.patchJson(scope.substring(0, scope.length() - 1),
          patch().put("queue", "x?y")), 422, "queue must not contain '?' (reserved)");
      Reply missingField = server.patchJson(scope.substring(0, scope.length() - 1),
          "{\"backoff\":{\"base_ms\":1}}");
      assertThat(missingField.status()).as("%s", missingField).isEqualTo(400);
      BudgetClient.assertErrorStartingWith(server.patchJson(
          scope.substring(0, scope.length() - 1), "{\"priority\":70000}"), 400, "invalid JSON: ");

      JsonNode after = stored(jobId);
      assertThat(after.get("priority").intValue()).isEqualTo(32768);
      assertThat(after.get("queue").textValue()).isEqualTo(queue);
      assertThat(after.has("backoff")).isFalse();
    }

    @Test
    void budgetKeyFilterSelectsBoundJobs() {
      String key = uniqueName("bulk-patch-key");
      String queue = uniqueName("bulk-patch-key");
      new BudgetClient(server).define(key, whileInFlight(5));
      String bound = id(server.enqueue(boundJob(queue, binding(key))));
      String unbound = server.enqueueId(queue);

      assertThat(patchMatching("budgets.key=" + key, patch().put("priority", 3))).isEqualTo(1);

      assertThat(stored(bound).get("priority").intValue()).isEqualTo(3);
      assertThat(stored(unbound).get("priority").intValue()).isEqualTo(32768);
    }
  }
}

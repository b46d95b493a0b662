package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.binding;
import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.QueryClient.count;
import static io.sluice.cli.http.QueryClient.enc;
import static io.sluice.cli.http.QueryClient.listIds;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.cli.http.ServerFixture.Taken;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code DELETE /jobs/{id}} (API.md §8.14), {@code DELETE /jobs} (§8.15) and {@code POST /reset}
 * (§10). Tests on the shared server use queues of their own; tests that delete or reset
 * everything run a server of their own.
 */
class JobMutationDeleteHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static ObjectNode failure(String message) {
    return JSON.createObjectNode().put("message", message);
  }

  static void assertNotFound(Reply reply) {
    BudgetClient.assertError(reply, 404, "job not found");
  }

  static void assertDeleted(ServerFixture on, String jobId) {
    Reply reply = on.delete("/jobs/" + jobId);
    assertThat(reply.status()).as("DELETE /jobs/%s -> %s", jobId, reply).isEqualTo(204);
    assertThat(reply.body()).isEmpty();
    assertNotFound(on.get("/jobs/" + jobId));
    assertThat(listIds(on, "id=" + jobId)).isEmpty();
    assertThat(count(on, "id=" + jobId)).isZero();
    assertNotFound(on.delete("/jobs/" + jobId));
  }

  /** {@code DELETE /jobs?<query>}: asserts 200 and returns {@code deleted}. */
  static long deleteMatching(ServerFixture on, String query) {
    Reply reply = on.delete(query.isEmpty() ? "/jobs" : "/jobs?" + query);
    assertThat(reply.status()).as("DELETE /jobs?%s -> %s", query, reply).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/json");
    JsonNode body = reply.json();
    assertThat(body.size()).as("only `deleted` in %s", body).isEqualTo(1);
    assertThat(body.get("deleted").isIntegralNumber()).as("deleted in %s", body).isTrue();
    return body.get("deleted").longValue();
  }

  @Nested
  class Single {
    @Test
    void readyJob() {
      String queue = uniqueName("del-ready");
      String jobId = server.enqueueId(queue);

      assertDeleted(server, jobId);

      server.assertNothingReady(queue);
    }

    @Test
    void inFlightJobAckIsNotFoundAndSlotIsFreed() {
      String queue = uniqueName("del-in-flight");
      String first = server.enqueueId(queue);
      String second = server.enqueueId(queue);
      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=1")) {
        assertThat(id(stream.nextJob())).isEqualTo(first);

        assertDeleted(server, first);

        Reply ack = server.post("/jobs/" + first + "/success");
        assertThat(ack.status()).isEqualTo(404);
        assertThat(ack.error()).isEqualTo("job not found in in-flight set");
        Reply failure = server.postJson("/jobs/" + first + "/failure", failure("late"));
        assertThat(failure.status()).isEqualTo(404);
        assertThat(id(stream.nextJob())).as("the freed prefetch slot").isEqualTo(second);
        server.ack(second);
      }
      assertNotFound(server.get("/jobs/" + first));
    }

    @Test
    void inFlightJobIsNotRequeuedWhenItsStreamCloses() {
      String queue = uniqueName("del-in-flight-close");
      Taken taken = server.takeOne(queue);
      try (taken) {
        assertDeleted(server, taken.id());
      }

      assertThat(count(server, "queue=" + queue)).isZero();
      server.assertNothingReady(queue);
      assertNotFound(server.get("/jobs/" + taken.id()));
    }

    @Test
    void completedJob() {
      ObjectNode request = job(uniqueName("del-completed"), "keep");
      request.putObject("retention").put("completed_ms", 60_000);
      Taken taken = server.takeOne(request);
      try (taken) {
        server.ack(taken.id());
      }
      assertThat(server.getJob(taken.id()).get("status").textValue()).isEqualTo("completed");

      assertDeleted(server, taken.id());
    }

    @Test
    void deadJobAndItsErrors() {
      Taken taken = server.takeOne(uniqueName("del-dead"));
      try (taken) {
        server.fail(taken.id(), failure("fatal").put("kill", true));
      }
      assertThat(server.getJob(taken.id()).get("status").textValue()).isEqualTo("dead");
      assertThat(server.get("/jobs/" + taken.id() + "/errors/1").status()).isEqualTo(200);

      assertDeleted(server, taken.id());

      assertNotFound(server.get("/jobs/" + taken.id() + "/errors"));
      assertNotFound(server.get("/jobs/" + taken.id() + "/errors/1"));
    }

    @Test
    void retriedJobWaitingForItsRetry() {
      Taken taken = server.takeOne(uniqueName("del-retry"));
      try (taken) {
        server.fail(taken.id(),
            failure("again").put("retry_at", System.currentTimeMillis() + 3_600_000));
      }

      assertDeleted(server, taken.id());
    }

    @Test
    void releasesItsBudgetTokens() {
      String key = uniqueName("del-budget");
      String queue = uniqueName("del-budget");
      new BudgetClient(server).define(key, whileInFlight(1));
      String first = id(server.enqueue(boundJob(queue, binding(key))));
      String second = id(server.enqueue(boundJob(queue, binding(key))));
      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=0")) {
        assertThat(id(stream.nextJob())).isEqualTo(first);
        stream.assertNoJobWithin(Duration.ofMillis(150));

        assertDeleted(server, first);

        assertThat(id(stream.nextJob())).isEqualTo(second);
        server.ack(second);
      }
    }

    @Test
    void otherJobsAreUntouched() {
      String queue = uniqueName("del-others");
      String first = server.enqueueId(queue);
      String second = server.enqueueId(queue);
      String third = server.enqueueId(queue);

      assertDeleted(server, second);

      assertThat(listIds(server, "queue=" + queue)).containsExactly(first, third);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0000000000000000000000000", "zzzzzzzzzzzzzzzzzzzzzzzzz", "nope",
        "ABCDEFGHIJKLMNOPQRSTUVWXY", "a%2Fb"})
    void unknownIdIsNotFound(String rawId) {
      assertNotFound(server.delete("/jobs/" + rawId));
    }

    @Test
    void notFoundIsMessagePackWhenAsked() {
      Reply reply = server.send("DELETE", "/jobs/nope", null,
          "Accept", ServerFixture.MSGPACK_TYPE);

      BudgetClient.assertMsgpackError(reply, 404, "job not found");
    }
  }

  @Nested
  class Bulk {
    @Test
    void deletesTheJobsMatchingEveryFilter() {
      String queue = uniqueName("bulk-del");
      String keep = uniqueName("bulk-del-keep");
      String typeA = uniqueName("bulk-del-ta");
      String typeB = uniqueName("bulk-del-tb");
      List<String> a = new ArrayList<>();
      List<String> b = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        ObjectNode request = job(queue, typeA).put("priority", i);
        request.putObject("payload").put("n", i);
        a.add(id(server.enqueue(request)));
        b.add(id(server.enqueue(job(queue, typeB).put("priority", i))));
      }
      String elsewhere = id(server.enqueue(job(keep, typeA)));

      assertThat(deleteMatching(server, "queue=" + queue + "&type=" + typeA + "&priority=1.."))
          .isEqualTo(2);

      assertThat(listIds(server, "queue=" + queue))
          .containsExactly(a.get(0), b.get(0), b.get(1), b.get(2));
      assertThat(listIds(server, "queue=" + keep)).containsExactly(elsewhere);
      assertNotFound(server.get("/jobs/" + a.get(1)));

      assertThat(deleteMatching(server, "queue=" + queue + "&filter=" + enc(".n == 0")))
          .isEqualTo(1);
      assertThat(deleteMatching(server, "id=" + b.get(2) + "," + elsewhere + "&type=" + typeB))
          .isEqualTo(1);
      assertThat(listIds(server, "queue=" + queue)).containsExactly(b.get(0), b.get(1));
      assertThat(deleteMatching(server, "queue=" + queue + "," + keep)).isEqualTo(3);
      assertThat(count(server, "queue=" + queue + "," + keep)).isZero();
    }

    @Test
    void nothingMatchingDeletesNothing() {
      String queue = uniqueName("bulk-del-none");
      String jobId = server.enqueueId(queue);

      assertThat(deleteMatching(server, "queue=" + queue + "&status=dead")).isZero();
      assertThat(deleteMatching(server, "queue=" + uniqueName("bulk-del-empty"))).isZero();

      assertThat(listIds(server, "queue=" + queue)).containsExactly(jobId);
    }

    @Test
    void statusFilterCoversEveryStatus() throws InterruptedException {
      String queue = uniqueName("bulk-del-status");
      String ready = server.enqueueId(queue);
      String scheduled = id(server.enqueue(
          job(queue, "later").put("ready_at", System.currentTimeMillis() + 3_600_000)));
      ObjectNode retained = job(queue, "keep").put("priority", 0);
      retained.putObject("retention").put("completed_ms", 60_000);
      String completed = id(server.enqueue(retained));
      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=1")) {
        assertThat(id(stream.nextJob())).isEqualTo(completed);
        server.ack(completed);
        assertThat(id(stream.nextJob())).isEqualTo(ready);
        // ready is now in flight; one more ready job waits behind the prefetch limit
        String waiting = server.enqueueId(queue);

        assertThat(deleteMatching(server, "queue=" + queue + "&status=scheduled,completed"))
            .isEqualTo(2);
        assertThat(listIds(server, "queue=" + queue)).containsExactly(ready, waiting);

        assertThat(deleteMatching(server, "queue=" + queue + "&status=in_flight")).isEqualTo(1);
        Reply ack = server.post("/jobs/" + ready + "/success");
        assertThat(ack.status()).isEqualTo(404);
        assertThat(id(stream.nextJob())).as("the freed prefetch slot").isEqualTo(waiting);
        server.ack(waiting);
      }
      assertNotFound(server.get("/jobs/" + scheduled));
      assertThat(count(server, "queue=" + queue)).isZero();
    }

    @Test
    void deletedBoundJobsReleaseTheirBudget() {
      String key = uniqueName("bulk-del-budget");
      String queue = uniqueName("bulk-del-budget");
      new BudgetClient(server).define(key, whileInFlight(1));
      String first = id(server.enqueue(boundJob(queue, binding(key))));
      String second = id(server.enqueue(boundJob(queue, binding(key))));
      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=0")) {
        assertThat(id(stream.nextJob())).isEqualTo(first);
        stream.assertNoJobWithin(Duration.ofMillis(150));

        assertThat(deleteMatching(server, "budgets.key=" + key + "&status=in_flight"))
            .isEqualTo(1);

        assertThat(id(stream.nextJob())).isEqualTo(second);
        server.ack(second);
      }
    }

    @Test
    void badParametersDeleteNothing() {
      String queue = uniqueName("bulk-del-bad");
      String jobId = server.enqueueId(queue);
      String scope = "queue=" + queue + "&";

      BudgetClient.assertError(server.delete("/jobs?" + scope + "id=nope"), 400,
          "invalid job ID: \"nope\"");
      BudgetClient.assertError(server.delete("/jobs?" + scope + "status=gone"), 400,
          "invalid query parameters: unknown status: gone");
      BudgetClient.assertError(server.delete("/jobs?" + scope + "priority=9..1"), 400,
          "invalid query parameters: range lower bound exceeds upper bound");
      BudgetClient.assertErrorStartingWith(server.delete("/jobs?" + scope + "priority=x"), 400,
          "invalid query parameters: ");
      BudgetClient.assertErrorStartingWith(server.delete("/jobs?" + scope + "filter=.%5B"), 400,
          "invalid filter: ");
      for (String unknown : List.of("bogus=1", "limit=10", "order=asc", "from=" + jobId)) {
        BudgetClient.assertErrorStartingWith(server.delete("/jobs?" + scope + unknown), 400,
            "invalid query parameters: ");
      }

      assertThat(listIds(server, "queue=" + queue)).containsExactly(jobId);
    }

    @Test
    void noFilterDeletesEveryJob(@TempDir Path tempDir) {
      try (ServerFixture own = ServerFixture.start(tempDir)) {
        own.enqueueId("one");
        own.enqueueId("two");
        own.enqueue(job("three", "later").put("ready_at", System.currentTimeMillis() + 60_000));
        Taken taken = own.takeOne("four");
        try (taken) {
          assertThat(deleteMatching(own, "")).isEqualTo(4);

          assertThat(own.post("/jobs/" + taken.id() + "/success").status()).isEqualTo(404);
        }
        assertThat(count(own, "")).isZero();
        assertThat(own.get("/queues").json())
            .isEqualTo(JSON.createObjectNode().set("queues", JSON.createArrayNode()));
        assertThat(deleteMatching(own, "")).isZero();
      }
    }
  }

  /** Deletions whose point is what does not happen as the server's clock passes an instant. */
  @Nested
  class OnAManualClock {
    @RegisterExtension
    static final ServerFixture manualServer = ServerFixture.perTestClassOnManualClock();

    @Test
    void scheduledJobNeverRuns() {
      String queue = uniqueName("del-scheduled");
      long readyAtMs = manualServer.nowMs() + 200;
      String jobId = id(manualServer.enqueue(job(queue, "later").put("ready_at", readyAtMs)));

      assertDeleted(manualServer, jobId);
      manualServer.advance(Duration.ofMillis(200));

      assertThat(manualServer.nowMs()).isEqualTo(readyAtMs);
      manualServer.assertNothingReady(queue);
    }

    @Test
    void deletedScheduledJobsAreNeverPromoted() {
      String queue = uniqueName("bulk-del-scheduled");
      long readyAtMs = manualServer.nowMs() + 200;
      manualServer.enqueue(job(queue, "later").put("ready_at", readyAtMs));
      manualServer.enqueue(job(queue, "later").put("ready_at", readyAtMs));

      assertThat(deleteMatching(manualServer, "queue=" + queue + "&status=scheduled"))
          .isEqualTo(2);
      manualServer.advance(Duration.ofMillis(200));

      assertThat(manualServer.nowMs()).isEqualTo(readyAtMs);
      assertThat(count(manualServer, "queue=" + queue)).isZero();
      manualServer.assertNothingReady(queue);
    }

    @Test
    void jobsPastPurgeAtAreNotCounted() {
      manualServer.runReaperNow();
      String queue = uniqueName("bulk-del-purged");
      ObjectNode brief = job(queue, "brief");
      brief.putObject("retention").put("completed_ms", 1);
      try (Taken taken = manualServer.takeOne(brief)) {
        manualServer.ack(taken.id());
      }
      String live = manualServer.enqueueId(queue);
      assertThat(count(manualServer, "queue=" + queue)).as("before purge_at").isEqualTo(2);
      manualServer.advance(Duration.ofMillis(1));

      assertThat(deleteMatching(manualServer, "queue=" + queue)).isEqualTo(1);

      assertNotFound(manualServer.get("/jobs/" + live));
    }
  }

  @Nested
  class Reset {
    @Test
    void wipesJobsInEveryStatusAndBudgets(@TempDir Path tempDir) {
      try (ServerFixture own = ServerFixture.start(tempDir)) {
        BudgetClient budgets = new BudgetClient(own);
        budgets.define("pool", whileInFlight(5));
        List<String> ids = new ArrayList<>();
        ids.add(id(own.enqueue(boundJob("ready", binding("pool")))));
        ids.add(id(own.enqueue(job("scheduled", "later")
            .put("ready_at", System.currentTimeMillis() + 60_000))));
        ObjectNode retained = job("done", "keep");
        retained.putObject("retention").put("completed_ms", 60_000);
        try (Taken completed = own.takeOne(retained)) {
          own.ack(completed.id());
          ids.add(completed.id());
        }
        try (Taken dead = own.takeOne("dead")) {
          own.fail(dead.id(), failure("fatal").put("kill", true));
          ids.add(dead.id());
        }
        try (WorkerStream worker = own.take("queue=busy&prefetch=1")) {
          String inFlight = own.enqueueId("busy");
          assertThat(id(worker.nextJob())).isEqualTo(inFlight);
          ids.add(inFlight);
          assertThat(count(own, "")).isEqualTo(5);

          Reply reset = own.post("/reset");

          assertThat(reset.status()).isEqualTo(204);
          assertThat(reset.body()).isEmpty();
          assertThat(count(own, "")).isZero();
          assertThat(listIds(own, "")).isEmpty();
          assertThat(own.get("/queues").json())
              .isEqualTo(JSON.createObjectNode().set("queues", JSON.createArrayNode()));
          assertThat(own.get("/budgets").json())
              .isEqualTo(JSON.createObjectNode().set("budgets", JSON.createArrayNode()));
          for (String gone : ids) {
            assertNotFound(own.get("/jobs/" + gone));
          }
          Reply ack = own.post("/jobs/" + inFlight + "/success");
          assertThat(ack.status()).isEqualTo(404);
          assertThat(ack.error()).isEqualTo("job not found in in-flight set");

          String fresh = own.enqueueId("busy");
          assertThat(id(worker.nextJob())).as("the stream's slot was freed").isEqualTo(fresh);
          own.ack(fresh);
        }
        assertThat(budgets.get("pool").status()).isEqualTo(404);
        assertThat(own.post("/reset").status()).as("reset when empty").isEqualTo(204);
      }
    }
  }
}

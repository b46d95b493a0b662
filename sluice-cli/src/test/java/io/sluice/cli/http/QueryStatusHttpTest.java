package io.sluice.cli.http;

import static io.sluice.cli.http.QueryClient.count;
import static io.sluice.cli.http.QueryClient.enc;
import static io.sluice.cli.http.QueryClient.listIds;
import static io.sluice.cli.http.QueryClient.listedJob;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.cli.http.ServerFixture.Taken;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Job statuses as {@code GET /jobs}, {@code GET /jobs/count} and {@code GET /jobs/{id}} show them
 * (API.md §4.1, §4.4, §6.1, §7.2), invisibility past {@code purge_at}, and {@code GET /queues}
 * (§8.8). Each test uses queues of its own.
 */
class QueryStatusHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static final long DEAD_RETENTION_MS = 604_800_000L;

  static ObjectNode failure(String message) {
    return JSON.createObjectNode().put("message", message);
  }

  /** The listed job equals GET /jobs/{id}, and the count by id and status is one. */
  static JsonNode seen(String id, String status) {
    return seen(server, id, status);
  }

  static JsonNode seen(ServerFixture target, String id, String status) {
    JsonNode listed = listedJob(target, id);
    assertThat(listed.get("status").textValue()).as("status of %s", listed).isEqualTo(status);
    assertThat(target.getJob(id)).isEqualTo(listed);
    assertThat(count(target, "id=" + id + "&status=" + status)).isEqualTo(1);
    assertThat(count(target, "id=" + id)).isEqualTo(1);
    assertThat(listed.has("duplicate")).isFalse();
    assertThat(listed.has("folded")).isFalse();
    EnqueueHttpTest.assertNoNulls(listed);
    return listed;
  }

  @Test
  void readyJob() {
    String queue = uniqueName("st-ready");
    ObjectNode request = job(queue, "work");
    long beforeMs = System.currentTimeMillis();
    JsonNode created = server.enqueue(request);
    long afterMs = System.currentTimeMillis();

    JsonNode listed = seen(id(created), "ready");

    assertThat(EnqueueHttpTest.fieldNames(listed)).containsExactlyInAnyOrder("id", "type",
        "queue", "priority", "status", "payload", "ready_at", "attempts");
    assertThat(listed.get("ready_at").longValue()).isEqualTo(created.get("ready_at").longValue())
        .isBetween(beforeMs, afterMs);
    assertThat(listed.get("payload")).isEqualTo(request.get("payload"));
    assertThat(listIds(server, "queue=" + queue + "&status=ready")).containsExactly(id(created));
    assertThat(count(server, "queue=" + queue + "&status=scheduled,in_flight,completed,dead"))
        .isZero();
  }

  @Test
  void takenJobIsInFlightWithItsDequeueTime() {
    String queue = uniqueName("st-in-flight");
    try (Taken taken = server.takeOne(queue)) {
      JsonNode listed = seen(taken.id(), "in_flight");

      assertThat(listed.get("dequeued_at").longValue()).isEqualTo(taken.dequeuedAtMs());
      assertThat(listed.get("payload")).isEqualTo(taken.delivered().get("payload"));
      assertThat(listIds(server, "queue=" + queue + "&status=in_flight"))
          .containsExactly(taken.id());
      assertThat(count(server, "queue=" + queue + "&status=ready,scheduled")).isZero();

      server.ack(taken.id());
    }
    assertThat(count(server, "queue=" + queue)).isZero();
  }

  @Test
  void statusFiltersPageThroughInFlightAndReadyJobs() {
    String queue = uniqueName("st-page-status");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ids.add(server.enqueueId(queue));
    }
    try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=2")) {
      assertThat(stream.nextJobs(2)).extracting(ServerFixture::id)
          .containsExactly(ids.get(0), ids.get(1));

      JsonNode inFlight = QueryClient.list(server, "queue=" + queue + "&status=in_flight&limit=1");
      assertThat(QueryClient.ids(inFlight)).containsExactly(ids.get(0));
      JsonNode inFlightNext = QueryClient.follow(server,
          inFlight.get("pages").get("next").textValue());
      assertThat(QueryClient.ids(inFlightNext)).containsExactly(ids.get(1));
      assertThat(inFlightNext.get("pages").get("next").isNull()).isTrue();

      JsonNode ready = QueryClient.list(server, "queue=" + queue + "&status=ready&limit=1");
      assertThat(QueryClient.ids(ready)).containsExactly(ids.get(2));
      JsonNode readyNext = QueryClient.follow(server, ready.get("pages").get("next").textValue());
      assertThat(QueryClient.ids(readyNext)).containsExactly(ids.get(3));
      assertThat(readyNext.get("pages").get("next").isNull()).isTrue();

      JsonNode desc = QueryClient.list(server,
          "queue=" + queue + "&status=in_flight&order=desc&from=" + ids.get(3));
      assertThat(QueryClient.ids(desc)).containsExactly(ids.get(1), ids.get(0));
      server.ack(ids.get(0));
      server.ack(ids.get(1));
    }
  }

  @Test
  void requeuedJobIsReadyAgainWithItsDequeueTime() {
    String queue = uniqueName("st-requeue");
    Taken taken = server.takeOne(queue);
    taken.close();

    JsonNode requeued = ServerFixture.poll(() -> listedJob(server, taken.id()),
        job -> job.get("status").textValue().equals("ready"), "job to be requeued");

    assertThat(requeued.get("dequeued_at").longValue()).isEqualTo(taken.dequeuedAtMs());
    assertThat(requeued.get("attempts").intValue()).isZero();
    assertThat(count(server, "queue=" + queue + "&status=in_flight")).isZero();
    assertThat(count(server, "queue=" + queue + "&status=ready")).isEqualTo(1);
  }

  @Test
  void failedJobWithRetryIsScheduledWithItsHistory() {
    String queue = uniqueName("st-retry");
    long retryAtMs = System.currentTimeMillis() + 3_600_000;
    try (Taken taken = server.takeOne(queue)) {
      long beforeMs = System.currentTimeMillis();
      server.fail(taken.id(), failure("boom").put("retry_at", retryAtMs));
      long afterMs = System.currentTimeMillis();

      JsonNode listed = seen(taken.id(), "scheduled");

      assertThat(listed.get("attempts").intValue()).isEqualTo(1);
      assertThat(listed.get("ready_at").longValue()).isEqualTo(retryAtMs);
      assertThat(listed.get("dequeued_at").longValue()).isEqualTo(taken.dequeuedAtMs());
      assertThat(listed.get("failed_at").longValue()).isBetween(beforeMs, afterMs);
      assertThat(count(server, "queue=" + queue + "&attempts=1&status=scheduled")).isEqualTo(1);
    }
  }

  @Test
  void killedJobIsDeadUntilItsPurgeTime() {
    String queue = uniqueName("st-dead");
    try (Taken taken = server.takeOne(queue)) {
      long beforeMs = System.currentTimeMillis();
      JsonNode reported = server.fail(taken.id(), failure("fatal").put("kill", true));
      long afterMs = System.currentTimeMillis();
      assertThat(reported.get("status").textValue()).isEqualTo("dead");

      JsonNode listed = seen(taken.id(), "dead");

      assertThat(listed.get("attempts").intValue()).isEqualTo(1);
      long failedAtMs = listed.get("failed_at").longValue();
      assertThat(failedAtMs).isBetween(beforeMs, afterMs);
      assertThat(listed.get("purge_at").longValue())
          .isBetween(beforeMs + DEAD_RETENTION_MS, afterMs + DEAD_RETENTION_MS);
      assertThat(listed.has("completed_at")).isFalse();
      assertThat(listIds(server, "queue=" + queue + "&status=dead")).containsExactly(taken.id());
    }
  }

  @Test
  void exhaustedRetriesAreDead() {
    String queue = uniqueName("st-exhausted");
    try (Taken taken = server.takeOne(job(queue, "once").put("retry_limit", 0))) {
      server.fail(taken.id(), failure("no retries"));

      JsonNode listed = seen(taken.id(), "dead");

      assertThat(listed.get("retry_limit").intValue()).isZero();
      assertThat(listed.has("purge_at")).isTrue();
    }
  }

  @Test
  void completedJobIsVisibleDuringItsRetention() {
    String queue = uniqueName("st-completed");
    ObjectNode request = job(queue, "keep");
    request.putObject("retention").put("completed_ms", 60_000);
    try (Taken taken = server.takeOne(request)) {
      long beforeMs = System.currentTimeMillis();
      server.ack(taken.id());
      long afterMs = System.currentTimeMillis();

      JsonNode listed = seen(taken.id(), "completed");

      long completedAtMs = listed.get("completed_at").longValue();
      assertThat(completedAtMs).isBetween(beforeMs, afterMs);
      assertThat(listed.get("purge_at").longValue()).isEqualTo(completedAtMs + 60_000);
      assertThat(listed.get("retention"))
          .isEqualTo(JSON.createObjectNode().put("completed_ms", 60_000));
      assertThat(listed.get("dequeued_at").longValue()).isEqualTo(taken.dequeuedAtMs());
      assertThat(listIds(server, "queue=" + queue + "&status=completed"))
          .containsExactly(taken.id());
    }
  }

  /** Promotion and purging, which happen as the server's clock passes a job's instants. */
  @Nested
  class OnAManualClock {
    @RegisterExtension
    static final ServerFixture manualServer = ServerFixture.perTestClassOnManualClock();

    @Test
    void futureReadyAtIsScheduledThenReady() {
      String queue = uniqueName("st-scheduled");
      long readyAtMs = manualServer.nowMs() + 400;
      String jobId = id(manualServer.enqueue(job(queue, "later").put("ready_at", readyAtMs)));

      JsonNode scheduled = seen(manualServer, jobId, "scheduled");
      assertThat(scheduled.get("ready_at").longValue()).isEqualTo(readyAtMs);
      assertThat(count(manualServer, "queue=" + queue + "&status=ready")).isZero();

      manualServer.advance(Duration.ofMillis(399));
      seen(manualServer, jobId, "scheduled");
      manualServer.advance(Duration.ofMillis(1));

      JsonNode ready = seen(manualServer, jobId, "ready");
      assertThat(manualServer.nowMs()).isEqualTo(readyAtMs);
      assertThat(ready.get("ready_at").longValue()).isEqualTo(readyAtMs);
      assertThat(count(manualServer, "queue=" + queue + "&status=scheduled")).isZero();
    }

    @Test
    void jobsPastPurgeAtAreInvisible() {
      manualServer.runReaperNow();
      String queue = uniqueName("st-purged");
      ObjectNode completedRequest = job(queue, "brief");
      completedRequest.putObject("retention").put("completed_ms", 1);
      ObjectNode deadRequest = job(queue, "brief");
      deadRequest.putObject("retention").put("dead_ms", 1);
      String completed;
      String dead;
      try (Taken taken = manualServer.takeOne(completedRequest)) {
        manualServer.ack(taken.id());
        completed = taken.id();
      }
      try (Taken taken = manualServer.takeOne(deadRequest)) {
        JsonNode reported = manualServer.fail(taken.id(), failure("fatal").put("kill", true));
        assertThat(reported.get("status").textValue()).isEqualTo("dead");
        dead = taken.id();
      }
      String live = manualServer.enqueueId(queue);
      assertThat(listIds(manualServer, "queue=" + queue))
          .as("visible until their purge_at").containsExactly(completed, dead, live);

      // To both purge_at values, 30 s before the reaper runs again and removes the jobs.
      manualServer.advance(Duration.ofMillis(1));

      assertThat(listIds(manualServer, "queue=" + queue)).containsExactly(live);
      assertThat(listIds(manualServer, "queue=" + queue + "&order=desc")).containsExactly(live);
      assertThat(count(manualServer, "queue=" + queue)).isEqualTo(1);
      assertThat(count(manualServer, "queue=" + queue + "&status=completed,dead")).isZero();
      for (String gone : List.of(completed, dead)) {
        assertThat(listIds(manualServer, "id=" + gone)).isEmpty();
        assertThat(count(manualServer, "id=" + gone)).isZero();
        Reply get = manualServer.get("/jobs/" + gone);
        assertThat(get.status()).isEqualTo(404);
        assertThat(get.error()).isEqualTo("job not found");
        assertThat(manualServer.get("/jobs/" + gone + "/errors").status()).isEqualTo(404);
        Reply delete = manualServer.delete("/jobs/" + gone);
        assertThat(delete.status()).isEqualTo(404);
        assertThat(delete.error()).isEqualTo("job not found");
        assertThat(manualServer.post("/jobs/" + gone + "/success").status()).isEqualTo(404);
      }
    }
  }

  // ---- GET /queues -----------------------------------------------------------------------------

  static List<String> queues() {
    Reply reply = server.get("/queues");
    assertThat(reply.status()).as("%s", reply).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/json");
    JsonNode body = reply.json();
    assertThat(body.size()).as("only `queues` in %s", body).isEqualTo(1);
    List<String> names = new ArrayList<>();
    for (JsonNode name : body.get("queues")) {
      names.add(name.textValue());
    }
    return names;
  }

  static int compareUtf8(String a, String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
        b.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void queuesAreDistinctSortedByByteOrderAndCoverEveryStatus() {
    // Byte order differs from Java's UTF-16 order for the last two: U+FF21 (EF BC A1) sorts
    // before U+1F600 (F0 9F 98 80), whose surrogate pair D83D sorts first in UTF-16.
    String upper = "Z-" + uniqueName("q");
    String lower = "a-" + uniqueName("q");
    String fullwidth = "\uFF21-" + uniqueName("q");
    String emoji = "\uD83D\uDE00-" + uniqueName("q");
    server.enqueue(job(lower, "ready"));
    server.enqueue(job(lower, "ready"));
    server.enqueue(job(emoji, "scheduled").put("ready_at", System.currentTimeMillis() + 3_600_000));
    String deadId = id(server.enqueue(job(fullwidth, "dead")));
    try (WorkerStream stream = server.take("queue=" + enc(fullwidth))) {
      assertThat(id(stream.nextJob())).isEqualTo(deadId);
      server.fail(deadId, failure("fatal").put("kill", true));
    }
    try (Taken inFlight = server.takeOne(upper)) {
      List<String> names = queues();

      assertThat(names).doesNotHaveDuplicates();
      assertThat(names).isSortedAccordingTo(QueryStatusHttpTest::compareUtf8);
      List<String> ours = names.stream()
          .filter(List.of(upper, lower, fullwidth, emoji)::contains).toList();
      assertThat(ours).containsExactly(upper, lower, fullwidth, emoji);
      server.ack(inFlight.id());
    }
  }

  @Test
  void queueLastsAsLongAsOneOfItsJobs() {
    String queue = uniqueName("st-queue-life");
    assertThat(queues()).doesNotContain(queue);
    String first = server.enqueueId(queue);
    String second = server.enqueueId(queue);
    assertThat(queues()).contains(queue);

    assertThat(server.delete("/jobs/" + first).status()).isEqualTo(204);
    assertThat(queues()).contains(queue);
    assertThat(server.delete("/jobs/" + second).status()).isEqualTo(204);

    assertThat(queues()).doesNotContain(queue);
  }

  @Test
  void queuesAnswerMessagePack() {
    String queue = uniqueName("st-queues-mp");
    server.enqueueId(queue);

    Reply reply = server.get("/queues", "Accept", ServerFixture.MSGPACK_TYPE);

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo(ServerFixture.MSGPACK_TYPE);
    List<String> names = new ArrayList<>();
    reply.msgpack().get("queues").forEach(name -> names.add(name.textValue()));
    assertThat(names).contains(queue).isEqualTo(queues());
  }
}

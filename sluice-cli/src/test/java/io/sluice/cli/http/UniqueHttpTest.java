package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_STREAM_TYPE;
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
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Unique jobs over HTTP (API.md §4.5, §6.1, §8.2, §8.3): 201 for a new job, 200 with
 * {@code duplicate: true} and the holder's data for a duplicate, the echo of {@code unique_key} and
 * {@code unique_while}, validation errors, and concurrent enqueues of one key.
 */
class UniqueHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  /** A unique enqueue request; {@code scope} null leaves {@code unique_while} out. */
  static ObjectNode uniqueJob(String queue, String key, String scope) {
    ObjectNode job = job(queue, "work");
    job.put("unique_key", key);
    if (scope != null) {
      job.put("unique_while", scope);
    }
    return job;
  }

  static ObjectNode bulkOf(ObjectNode... jobs) {
    ObjectNode body = JSON.createObjectNode();
    ArrayNode list = body.putArray("jobs");
    for (ObjectNode job : jobs) {
      list.add(job);
    }
    return body;
  }

  /** Enqueues a job that must be a duplicate; asserts 200, the flags and the holder's id. */
  static JsonNode duplicate(ObjectNode request, String holderId) {
    Reply reply = server.postJson("/jobs", request);
    assertThat(reply.status()).as("duplicate enqueue %s -> %s", request, reply).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/json");
    JsonNode body = reply.json();
    assertThat(body.get("duplicate").isBoolean()).isTrue();
    assertThat(body.get("duplicate").booleanValue()).isTrue();
    assertThat(body.get("folded").booleanValue()).isFalse();
    assertThat(id(body)).isEqualTo(holderId);
    assertThat(body.has("payload")).isFalse();
    return body;
  }

  static void assertCreated(JsonNode body) {
    assertThat(body.get("duplicate").isBoolean()).as("duplicate in %s", body).isTrue();
    assertThat(body.get("duplicate").booleanValue()).as("duplicate in %s", body).isFalse();
    assertThat(body.get("folded").booleanValue()).as("folded in %s", body).isFalse();
  }

  static long count(String queue) {
    Reply reply = server.get("/jobs/count?queue=" + queue);
    assertThat(reply.status()).as("count %s -> %s", queue, reply).isEqualTo(200);
    return reply.json().get("count").longValue();
  }

  @Nested
  class SingleJson {
    @Test
    void secondEnqueueIsA200DuplicateCarryingTheHoldersData() {
      String queue = uniqueName("uniq");
      String key = uniqueName("key");
      ObjectNode first = uniqueJob(queue, key, null);
      first.put("priority", 7);

      Reply created = server.postJson("/jobs", first);

      assertThat(created.status()).as("%s", created).isEqualTo(201);
      JsonNode holder = created.json();
      assertCreated(holder);
      assertThat(holder.get("unique_key").textValue()).isEqualTo(key);
      assertThat(holder.get("unique_while").textValue()).isEqualTo("queued");
      assertThat(holder.get("status").textValue()).isEqualTo("ready");

      ObjectNode second = uniqueJob(uniqueName("elsewhere"), key, "queued");
      second.put("priority", 9);
      second.put("type", "other");
      JsonNode dup = duplicate(second, id(holder));

      assertThat(dup.get("queue").textValue()).isEqualTo(queue);
      assertThat(dup.get("type").textValue()).isEqualTo("work");
      assertThat(dup.get("priority").intValue()).isEqualTo(7);
      assertThat(dup.get("status").textValue()).isEqualTo("ready");
      assertThat(dup.get("ready_at").longValue()).isEqualTo(holder.get("ready_at").longValue());
      assertThat(dup.get("unique_key").textValue()).isEqualTo(key);
      assertThat(dup.get("unique_while").textValue()).isEqualTo("queued");
      assertThat(count(queue)).isEqualTo(1);
      assertThat(count(second.get("queue").textValue())).isZero();
    }

    @Test
    void everyScopeIsDuplicatedWhileScheduled() {
      for (String scope : List.of("queued", "active", "exists")) {
        String queue = uniqueName("sched");
        String key = uniqueName("key");
        ObjectNode request = uniqueJob(queue, key, scope);
        request.put("ready_at", System.currentTimeMillis() + 60_000);
        JsonNode holder = server.enqueue(request);
        assertCreated(holder);
        assertThat(holder.get("unique_while").textValue()).isEqualTo(scope);

        JsonNode dup = duplicate(uniqueJob(queue, key, scope), id(holder));

        assertThat(dup.get("status").textValue()).as(scope).isEqualTo("scheduled");
        assertThat(count(queue)).isEqualTo(1);
      }
    }

    @Test
    void activeHolderInFlightIsAnsweredWithItsLiveStatus() {
      String queue = uniqueName("active");
      String key = uniqueName("key");
      try (Taken taken = server.takeOne(uniqueJob(queue, key, "active"))) {
        JsonNode dup = duplicate(uniqueJob(queue, key, "active"), taken.id());

        assertThat(dup.get("status").textValue()).isEqualTo("in_flight");
        assertThat(dup.get("dequeued_at").longValue()).isEqualTo(taken.dequeuedAtMs());
        server.ack(taken.id());
      }
    }

    @Test
    void queuedHolderInFlightLetsANewJobBeCreated() {
      String queue = uniqueName("queued");
      String key = uniqueName("key");
      try (Taken taken = server.takeOne(uniqueJob(queue, key, "queued"))) {
        Reply reply = server.postJson("/jobs", uniqueJob(uniqueName("next"), key, "queued"));

        assertThat(reply.status()).as("%s", reply).isEqualTo(201);
        assertCreated(reply.json());
        String newer = id(reply.json());
        assertThat(newer).isNotEqualTo(taken.id());
        duplicate(uniqueJob(queue, key, "queued"), newer);
        server.ack(taken.id());
      }
    }

    @Test
    void queuedHolderRequeuedByDisconnectHoldsTheClaimAgain() {
      String queue = uniqueName("requeue");
      String key = uniqueName("key");
      Taken taken = server.takeOne(uniqueJob(queue, key, "queued"));
      taken.close();
      server.awaitJob(taken.id(), j -> j.get("status").textValue().equals("ready"), "ready");

      JsonNode dup = duplicate(uniqueJob(queue, key, "queued"), taken.id());

      assertThat(dup.get("status").textValue()).isEqualTo("ready");
    }

    @Test
    void queuedHolderRetriedByAFailureHoldsTheClaimAgain() {
      String queue = uniqueName("retry");
      String key = uniqueName("key");
      long retryAtMs = System.currentTimeMillis() + 60_000;
      try (Taken taken = server.takeOne(uniqueJob(queue, key, null))) {
        ObjectNode report = JSON.createObjectNode().put("message", "boom")
            .put("retry_at", retryAtMs);
        assertThat(server.fail(taken.id(), report).get("status").textValue())
            .isEqualTo("scheduled");

        JsonNode dup = duplicate(uniqueJob(queue, key, "queued"), taken.id());

        assertThat(dup.get("status").textValue()).isEqualTo("scheduled");
        assertThat(dup.get("attempts").intValue()).isEqualTo(1);
        assertThat(dup.get("ready_at").longValue()).isEqualTo(retryAtMs);
      }
    }

    @Test
    void existsHolderCompletedWithRetentionIsStillADuplicate() {
      String queue = uniqueName("exists");
      String key = uniqueName("key");
      ObjectNode request = uniqueJob(queue, key, "exists");
      request.putObject("retention").put("completed_ms", 60_000);
      try (Taken taken = server.takeOne(request)) {
        server.ack(taken.id());

        JsonNode dup = duplicate(uniqueJob(queue, key, "exists"), taken.id());

        assertThat(dup.get("status").textValue()).isEqualTo("completed");
        assertThat(dup.has("completed_at")).isTrue();
        assertThat(dup.get("purge_at").longValue())
            .isEqualTo(dup.get("completed_at").longValue() + 60_000);
        // Another scope does not conflict with a completed job: a new job is created.
        Reply other = server.postJson("/jobs", uniqueJob(queue, key, "active"));
        assertThat(other.status()).as("%s", other).isEqualTo(201);
        assertThat(id(other.json())).isNotEqualTo(taken.id());
      }
    }

    @Test
    void activeHolderCompletedFreesTheKey() {
      String queue = uniqueName("active-done");
      String key = uniqueName("key");
      ObjectNode request = uniqueJob(queue, key, "active");
      request.putObject("retention").put("completed_ms", 60_000);
      try (Taken taken = server.takeOne(request)) {
        server.ack(taken.id());

        Reply reply = server.postJson("/jobs", uniqueJob(queue, key, "active"));

        assertThat(reply.status()).as("%s", reply).isEqualTo(201);
        assertThat(id(reply.json())).isNotEqualTo(taken.id());
      }
    }

    @Test
    void deletingTheHolderFreesTheKey() {
      String queue = uniqueName("deleted");
      String key = uniqueName("key");
      String holder = id(server.enqueue(uniqueJob(queue, key, "exists")));
      assertThat(server.delete("/jobs/" + holder).status()).isEqualTo(204);

      Reply reply = server.postJson("/jobs", uniqueJob(queue, key, "exists"));

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      assertThat(id(reply.json())).isNotEqualTo(holder);
    }
  }

  @Nested
  class Echo {
    @Test
    void getJobEchoesTheKeyAndTheDefaultedScopeButNoEnqueueFlags() {
      String queue = uniqueName("echo");
      String key = "ünïcode key / with spaces";
      String holder = id(server.enqueue(uniqueJob(queue, key, null)));

      JsonNode stored = server.getJob(holder);

      assertThat(stored.get("unique_key").textValue()).isEqualTo(key);
      assertThat(stored.get("unique_while").textValue()).isEqualTo("queued");
      assertThat(stored.has("duplicate")).isFalse();
      assertThat(stored.has("folded")).isFalse();
      assertThat(server.delete("/jobs/" + holder).status()).isEqualTo(204);
    }

    @Test
    void getJobInMessagePackEchoesTheExplicitScope() {
      String queue = uniqueName("echo-mp");
      String key = uniqueName("key");
      String holder = id(server.enqueue(uniqueJob(queue, key, "exists")));

      Reply reply = server.get("/jobs/" + holder, "Accept", MSGPACK_TYPE);

      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(reply.msgpack().get("unique_key").textValue()).isEqualTo(key);
      assertThat(reply.msgpack().get("unique_while").textValue()).isEqualTo("exists");
    }

    @Test
    void aJobWithoutAKeyHasNeitherField() {
      JsonNode created = server.enqueue(uniqueName("plain"), "work");

      assertThat(created.has("unique_key")).isFalse();
      assertThat(created.has("unique_while")).isFalse();
      assertCreated(created);
      JsonNode stored = server.getJob(id(created));
      assertThat(stored.has("unique_key")).isFalse();
      assertThat(stored.has("unique_while")).isFalse();
    }

    @Test
    void theTakeStreamEchoesTheKeyAndScope() {
      String queue = uniqueName("echo-take");
      String key = uniqueName("key");
      try (Taken taken = server.takeOne(uniqueJob(queue, key, "active"))) {
        assertThat(taken.delivered().get("unique_key").textValue()).isEqualTo(key);
        assertThat(taken.delivered().get("unique_while").textValue()).isEqualTo("active");
        assertThat(taken.delivered().has("duplicate")).isFalse();
        server.ack(taken.id());
      }
    }

    @Test
    void theMessagePackTakeStreamEchoesTheKeyAndDefaultedScope() {
      String queue = uniqueName("echo-take-mp");
      String key = uniqueName("key");
      String holder = id(server.enqueue(uniqueJob(queue, key, null)));
      try (WorkerStream stream = server.take("queue=" + queue, MSGPACK_STREAM_TYPE)) {
        JsonNode delivered = stream.nextJob();

        assertThat(id(delivered)).isEqualTo(holder);
        assertThat(delivered.get("unique_key").textValue()).isEqualTo(key);
        assertThat(delivered.get("unique_while").textValue()).isEqualTo("queued");
        server.ack(holder);
      }
    }
  }

  @Nested
  class MessagePack {
    @Test
    void singleDuplicateIs200WithBooleanFlags() {
      String queue = uniqueName("mp");
      String key = uniqueName("key");

      Reply first = server.postMsgpack("/jobs", toMsgpack(uniqueJob(queue, key, "active")));
      Reply second = server.postMsgpack("/jobs", toMsgpack(uniqueJob(queue, key, "active")));

      assertThat(first.status()).as("%s", first).isEqualTo(201);
      assertThat(first.contentType()).isEqualTo(MSGPACK_TYPE);
      JsonNode created = first.msgpack();
      assertThat(created.get("duplicate").isBoolean()).isTrue();
      assertThat(created.get("duplicate").booleanValue()).isFalse();
      assertThat(created.get("folded").booleanValue()).isFalse();
      assertThat(created.get("unique_while").textValue()).isEqualTo("active");
      assertThat(second.status()).as("%s", second).isEqualTo(200);
      assertThat(second.contentType()).isEqualTo(MSGPACK_TYPE);
      JsonNode dup = second.msgpack();
      assertThat(dup.get("duplicate").isBoolean()).isTrue();
      assertThat(dup.get("duplicate").booleanValue()).isTrue();
      assertThat(dup.get("folded").booleanValue()).isFalse();
      assertThat(id(dup)).isEqualTo(id(created));
      assertThat(dup.get("unique_key").textValue()).isEqualTo(key);
      assertThat(count(queue)).isEqualTo(1);
    }

    @Test
    void bulkOfDuplicatesIs200AndMixedBulkIs201() {
      String queue = uniqueName("mp-bulk");
      String key = uniqueName("key");
      String holder = id(server.enqueue(uniqueJob(queue, key, "queued")));

      Reply allDup = server.postMsgpack("/jobs/bulk", toMsgpack(bulkOf(
          uniqueJob(queue, key, "queued"), uniqueJob(queue, key, "exists"))));

      assertThat(allDup.status()).as("%s", allDup).isEqualTo(200);
      assertThat(allDup.contentType()).isEqualTo(MSGPACK_TYPE);
      JsonNode jobs = allDup.msgpack().get("jobs");
      assertThat(jobs).hasSize(2);
      for (JsonNode element : jobs) {
        assertThat(id(element)).isEqualTo(holder);
        assertThat(element.get("duplicate").booleanValue()).isTrue();
        assertThat(element.get("folded").booleanValue()).isFalse();
      }

      Reply mixed = server.postMsgpack("/jobs/bulk", toMsgpack(bulkOf(
          uniqueJob(queue, key, "queued"), job(queue, "work"))));

      assertThat(mixed.status()).as("%s", mixed).isEqualTo(201);
      JsonNode mixedJobs = mixed.msgpack().get("jobs");
      assertThat(id(mixedJobs.get(0))).isEqualTo(holder);
      assertThat(mixedJobs.get(0).get("duplicate").booleanValue()).isTrue();
      assertThat(mixedJobs.get(1).get("duplicate").booleanValue()).isFalse();
      assertThat(mixedJobs.get(1).get("folded").booleanValue()).isFalse();
      assertThat(count(queue)).isEqualTo(2);
    }
  }

  @Nested
  class Bulk {
    @Test
    void laterJobsWithAnEarlierKeyDuplicateItAndTheBulkIs201() {
      String queue = uniqueName("bulk");
      String k1 = uniqueName("key");
      String k2 = uniqueName("key");
      ObjectNode firstK1 = uniqueJob(queue, k1, "exists");
      firstK1.put("priority", 3);

      Reply reply = server.postJson("/jobs/bulk", bulkOf(
          firstK1,
          uniqueJob(queue, k2, null),
          uniqueJob(uniqueName("other"), k1, "queued"),
          job(queue, "work"),
          uniqueJob(queue, k1, "active")));

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      JsonNode jobs = reply.json().get("jobs");
      assertThat(jobs).hasSize(5);
      boolean[] duplicates = {false, false, true, false, true};
      for (int i = 0; i < 5; i++) {
        assertThat(jobs.get(i).get("duplicate").booleanValue()).as("jobs[%d]", i)
            .isEqualTo(duplicates[i]);
        assertThat(jobs.get(i).get("folded").booleanValue()).as("jobs[%d]", i).isFalse();
      }
      String holder = id(jobs.get(0));
      assertThat(id(jobs.get(2))).isEqualTo(holder);
      assertThat(id(jobs.get(4))).isEqualTo(holder);
      assertThat(jobs.get(2).get("queue").textValue()).isEqualTo(queue);
      assertThat(jobs.get(2).get("priority").intValue()).isEqualTo(3);
      assertThat(jobs.get(2).get("unique_while").textValue()).isEqualTo("exists");
      assertThat(jobs.get(1).get("unique_while").textValue()).isEqualTo("queued");
      assertThat(List.of(id(jobs.get(0)), id(jobs.get(1)), id(jobs.get(3)))).doesNotHaveDuplicates();
      assertThat(count(queue)).isEqualTo(3);
    }

    @Test
    void aBulkOfOnlyDuplicatesIs200() {
      String queue = uniqueName("bulk-dup");
      String key = uniqueName("key");
      String holder = id(server.enqueue(uniqueJob(queue, key, "active")));

      Reply reply = server.postJson("/jobs/bulk", bulkOf(
          uniqueJob(queue, key, "active"), uniqueJob(queue, key, "queued"),
          uniqueJob(queue, key, "exists")));

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      JsonNode jobs = reply.json().get("jobs");
      assertThat(jobs).hasSize(3);
      for (JsonNode element : jobs) {
        assertThat(id(element)).isEqualTo(holder);
        assertThat(element.get("duplicate").booleanValue()).isTrue();
        assertThat(element.get("unique_while").textValue()).isEqualTo("active");
      }
      assertThat(count(queue)).isEqualTo(1);
    }

    @Test
    void aBulkOfOneNewJobAndItsOwnDuplicateIs201() {
      String queue = uniqueName("bulk-self");
      String key = uniqueName("key");

      Reply reply = server.postJson("/jobs/bulk", bulkOf(
          uniqueJob(queue, key, null), uniqueJob(queue, key, null)));

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      JsonNode jobs = reply.json().get("jobs");
      assertThat(jobs.get(0).get("duplicate").booleanValue()).isFalse();
      assertThat(jobs.get(1).get("duplicate").booleanValue()).isTrue();
      assertThat(id(jobs.get(1))).isEqualTo(id(jobs.get(0)));
      assertThat(count(queue)).isEqualTo(1);
    }

    @Test
    void anEmptyBulkIs201() {
      Reply reply = server.postJson("/jobs/bulk", "{\"jobs\":[]}");

      assertThat(reply.status()).isEqualTo(201);
      assertThat(reply.json().toString()).isEqualTo("{\"jobs\":[]}");
    }
  }

  @Nested
  class BudgetsOnDuplicates {
    @Test
    void aDuplicatesCreateWithBudgetIsCreatedAndTheHolderKeepsItsBindings() {
      String queue = uniqueName("dup-budget");
      String key = uniqueName("key");
      String budget = uniqueName("budget");
      String holder = id(server.enqueue(uniqueJob(queue, key, null)));
      ObjectNode request = uniqueJob(queue, key, null);
      request.putArray("budgets").add(
          BudgetClient.bindingCreating(budget, BudgetClient.whileInFlight(4)));

      JsonNode dup = duplicate(request, holder);

      assertThat(dup.has("budgets")).isFalse();
      assertThat(server.get(BudgetClient.path(budget)).status()).isEqualTo(200);
    }

    @Test
    void aDuplicateWithAnUnknownBudgetIs422() {
      String queue = uniqueName("dup-ghost");
      String key = uniqueName("key");
      server.enqueue(uniqueJob(queue, key, null));
      ObjectNode request = uniqueJob(queue, key, null);
      request.putArray("budgets").add(BudgetClient.binding(uniqueName("ghost")));

      Reply reply = server.postJson("/jobs", request);

      assertThat(reply.status()).as("%s", reply).isEqualTo(422);
      assertThat(count(queue)).isEqualTo(1);
    }
  }

  @Nested
  class Validation {
    private void assertRejected(Reply reply, String message, String queue) {
      assertThat(reply.status()).as("%s", reply).isEqualTo(400);
      assertThat(reply.error()).isEqualTo(message);
      assertThat(count(queue)).as("nothing stored").isZero();
    }

    @Test
    void uniqueWhileWithoutUniqueKey() {
      String queue = uniqueName("bad");
      ObjectNode request = job(queue, "work");
      request.put("unique_while", "active");

      assertRejected(server.postJson("/jobs", request), "unique_while requires unique_key",
          queue);
    }

    @Test
    void uniqueWhileWithoutUniqueKeyIsReportedBeforeAnUnknownScope() {
      String queue = uniqueName("bad");
      ObjectNode request = job(queue, "work");
      request.put("unique_while", "x");

      assertRejected(server.postJson("/jobs", request), "unique_while requires unique_key",
          queue);
    }

    @Test
    void unknownUniqueWhile() {
      String queue = uniqueName("bad");

      assertRejected(server.postJson("/jobs", uniqueJob(queue, "k", "x")),
          "invalid unique_while: \"x\" (expected \"queued\", \"active\", or \"exists\")", queue);
    }

    @Test
    void uniqueWhileIsCaseSensitive() {
      String queue = uniqueName("bad");

      assertRejected(server.postJson("/jobs", uniqueJob(queue, "k", "Queued")),
          "invalid unique_while: \"Queued\" (expected \"queued\", \"active\", or \"exists\")",
          queue);
    }

    @Test
    void uniqueKeyWithBatch() {
      String queue = uniqueName("bad");
      ObjectNode request = uniqueJob(queue, "k", null);
      request.putObject("batch").put("key", "b").put("when", "true").put("fold", ".");

      assertRejected(server.postJson("/jobs", request),
          "unique_key and batch cannot be combined", queue);
    }

    @Test
    void uniqueKeyOfTheWrongTypeIsABodyError() {
      String queue = uniqueName("bad");
      ObjectNode request = job(queue, "work");
      request.put("unique_key", 5);

      Reply reply = server.postJson("/jobs", request);

      assertThat(reply.status()).as("%s", reply).isEqualTo(400);
      assertThat(reply.error()).startsWith("invalid JSON: ");
      assertThat(count(queue)).isZero();
    }

    @Test
    void bulkErrorNamesTheJobAndStoresNothing() {
      String queue = uniqueName("bad-bulk");
      String key = uniqueName("key");
      ObjectNode bad = job(queue, "work");
      bad.put("unique_while", "exists");

      assertRejected(server.postJson("/jobs/bulk", bulkOf(uniqueJob(queue, key, null), bad)),
          "jobs[1]: unique_while requires unique_key", queue);
      // The key was not taken by the rejected request's first job.
      Reply later = server.postJson("/jobs", uniqueJob(queue, key, null));
      assertThat(later.status()).as("%s", later).isEqualTo(201);
    }

    @Test
    void bulkUnknownScopeInMessagePack() {
      String queue = uniqueName("bad-bulk-mp");

      Reply reply = server.postMsgpack("/jobs/bulk", toMsgpack(bulkOf(
          uniqueJob(queue, "k1", null), uniqueJob(queue, "k2", "forever"))));

      assertThat(reply.status()).as("%s", reply).isEqualTo(400);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(reply.msgpack().get("error").textValue()).isEqualTo(
          "jobs[1]: invalid unique_while: \"forever\" (expected \"queued\", \"active\", or "
              + "\"exists\")");
      assertThat(count(queue)).isZero();
    }
  }

  @Nested
  class Concurrency {
    private static final int CLIENTS = 16;
    private static final int ROUNDS = 20;

    private record Answer(int status, String id, boolean duplicate, String body) {}

    @Test
    void sixteenClientsEnqueueingOneFreshKeyCreateExactlyOneJob() throws Exception {
      List<HttpClient> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        clients.add(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(ServerFixture.TIMEOUT).build());
      }
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      try {
        for (int round = 0; round < ROUNDS; round++) {
          String queue = uniqueName("race");
          String key = uniqueName("race-key");
          byte[] body = uniqueJob(queue, key, round % 3 == 0 ? "exists" : null).toString()
              .getBytes(StandardCharsets.UTF_8);
          CyclicBarrier start = new CyclicBarrier(CLIENTS);
          List<Future<Answer>> futures = new ArrayList<>();
          for (HttpClient client : clients) {
            futures.add(pool.submit(() -> {
              HttpRequest request = HttpRequest.newBuilder(server.uri("/jobs"))
                  .timeout(ServerFixture.TIMEOUT)
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                  .build();
              start.await(5, TimeUnit.SECONDS);
              HttpResponse<String> response =
                  client.send(request, HttpResponse.BodyHandlers.ofString());
              JsonNode json = JSON.readTree(response.body());
              return new Answer(response.statusCode(), json.path("id").asText(null),
                  json.path("duplicate").asBoolean(false), response.body());
            }));
          }
          List<Answer> answers = new ArrayList<>();
          for (Future<Answer> future : futures) {
            answers.add(future.get(10, TimeUnit.SECONDS));
          }

          List<Answer> created = answers.stream().filter(a -> a.status() == 201).toList();
          List<Answer> duplicates = answers.stream().filter(a -> a.status() == 200).toList();
          assertThat(created).as("round %d: 201 answers in %s", round, answers).hasSize(1);
          assertThat(duplicates).as("round %d: 200 answers in %s", round, answers)
              .hasSize(CLIENTS - 1);
          String jobId = created.get(0).id();
          assertThat(created.get(0).duplicate()).isFalse();
          assertThat(duplicates).allSatisfy(a -> {
            assertThat(a.id()).isEqualTo(jobId);
            assertThat(a.duplicate()).isTrue();
          });
          assertThat(count(queue)).as("round %d: jobs stored", round).isEqualTo(1);
          Reply listed = server.get("/jobs?queue=" + queue);
          assertThat(listed.json().get("jobs")).hasSize(1);
          assertThat(id(listed.json().get("jobs").get(0))).isEqualTo(jobId);
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }
}

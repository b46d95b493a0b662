package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.toMsgpack;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Batched jobs over HTTP (API.md §4.6, §4.7, §6.1, §8.2, §8.3; BUDGETS.md §4.2): opening, folding
 * and sealing with their status codes and flags, in JSON and MessagePack, single and bulk; the
 * 400/422 validation with nothing stored; the folded payload on reads and take streams; scheduled
 * batched jobs; and concurrent folds that must neither lose nor duplicate an item.
 */
class BatchHttpTest {
  /** Folds while the two payloads together hold at most three items. */
  static final String WHEN_UP_TO_3 = "($existing.items | length) + ($new.items | length) <= 3";
  static final String FOLD_ITEMS = "{items: ($existing.items + $new.items)}";

  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  // ---- helpers -------------------------------------------------------------------------------

  static ObjectNode batched(String queue, String key, String when, String fold, int... items) {
    ObjectNode job = JSON.createObjectNode();
    job.put("type", "digest");
    job.put("queue", queue);
    ArrayNode array = job.putObject("payload").putArray("items");
    for (int item : items) {
      array.add(item);
    }
    job.putObject("batch").put("key", key).put("when", when).put("fold", fold);
    return job;
  }

  static ObjectNode batched(String queue, String key, int... items) {
    return batched(queue, key, WHEN_UP_TO_3, FOLD_ITEMS, items);
  }

  static ObjectNode bulkOf(ObjectNode... jobs) {
    ObjectNode body = JSON.createObjectNode();
    ArrayNode array = body.putArray("jobs");
    for (ObjectNode job : jobs) {
      array.add(job);
    }
    return body;
  }

  static JsonNode items(int... items) {
    ObjectNode payload = JSON.createObjectNode();
    ArrayNode array = payload.putArray("items");
    for (int item : items) {
      array.add(item);
    }
    return payload;
  }

  static void assertFlags(JsonNode answer, boolean duplicate, boolean folded) {
    assertThat(answer.get("duplicate").isBoolean()).as("duplicate in %s", answer).isTrue();
    assertThat(answer.get("folded").isBoolean()).as("folded in %s", answer).isTrue();
    assertThat(answer.get("duplicate").booleanValue()).as("duplicate in %s", answer)
        .isEqualTo(duplicate);
    assertThat(answer.get("folded").booleanValue()).as("folded in %s", answer).isEqualTo(folded);
    assertThat(answer.has("payload")).as("enqueue answers carry no payload").isFalse();
  }

  /** POST /jobs expecting 201 and a new, unfolded job. */
  static JsonNode opens(ObjectNode request) {
    return opens(server, request);
  }

  static JsonNode opens(ServerFixture on, ObjectNode request) {
    Reply reply = on.postJson("/jobs", request);
    assertThat(reply.status()).as("open %s -> %s", request, reply).isEqualTo(201);
    JsonNode answer = reply.json();
    assertFlags(answer, false, false);
    return answer;
  }

  /** POST /jobs expecting 200 and a fold into {@code target}. */
  static JsonNode folds(ObjectNode request, String target) {
    return folds(server, request, target);
  }

  static JsonNode folds(ServerFixture on, ObjectNode request, String target) {
    Reply reply = on.postJson("/jobs", request);
    assertThat(reply.status()).as("fold %s -> %s", request, reply).isEqualTo(200);
    JsonNode answer = reply.json();
    assertFlags(answer, false, true);
    assertThat(id(answer)).isEqualTo(target);
    return answer;
  }

  static JsonNode payloadOf(String jobId) {
    return payloadOf(server, jobId);
  }

  static JsonNode payloadOf(ServerFixture on, String jobId) {
    return on.getJob(jobId).get("payload");
  }

  static long countIn(String queue) {
    return countIn(server, queue);
  }

  static long countIn(ServerFixture on, String queue) {
    Reply reply = on.get("/jobs/count?queue=" + queue);
    assertThat(reply.status()).as("%s", reply).isEqualTo(200);
    return reply.json().get("count").longValue();
  }

  static String error(Reply reply, int status) {
    assertThat(reply.status()).as("%s", reply).isEqualTo(status);
    assertThat(reply.contentType()).isEqualTo("application/json");
    return reply.error();
  }

  // ---- single enqueues -----------------------------------------------------------------------

  @Nested
  class Single {
    @Test
    void firstEnqueueOpensWith201AndEchoesTheBatch() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");

      JsonNode opened = opens(batched(queue, key, 1));

      assertThat(opened.get("status").textValue()).isEqualTo("ready");
      JsonNode batch = opened.get("batch");
      assertThat(batch).isEqualTo(JSON.createObjectNode().put("key", key)
          .put("when", WHEN_UP_TO_3).put("fold", FOLD_ITEMS));
      JsonNode stored = server.getJob(id(opened));
      assertThat(stored.get("batch")).isEqualTo(batch);
      assertThat(stored.has("folded")).as("flags only on enqueue answers").isFalse();
      assertThat(stored.has("duplicate")).isFalse();
      assertThat(stored.get("payload")).isEqualTo(items(1));
    }

    @Test
    void aFalsyWhenSealsAndTheNewJobOpensTheNextBatch() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String first = id(opens(batched(queue, key, 1, 2)));
      folds(batched(queue, key, 3), first);

      String second = id(opens(batched(queue, key, 4)));

      assertThat(second).isNotEqualTo(first);
      folds(batched(queue, key, 5), second);
      assertThat(payloadOf(first)).isEqualTo(items(1, 2, 3));
      assertThat(payloadOf(second)).isEqualTo(items(4, 5));
    }

    @Test
    void theOpenJobsFalseNullEmptyOrErroringWhenSeals() {
      String queue = uniqueName("batch");
      // Each passes the enqueue-time dry run (payload bound to both variables) yet is falsy,
      // empty or erroring for the real pair; the last errors only when the payloads differ.
      for (String when : List.of("false", "null", "empty", "false, true",
          "if $existing == $new then true else error(\"differ\") end")) {
        String key = uniqueName("key");
        String first = id(opens(batched(queue, key, when, FOLD_ITEMS, 1)));

        String second = id(opens(batched(queue, key, "true", FOLD_ITEMS, 2)));

        assertThat(second).as("sealed by when = %s", when).isNotEqualTo(first);
        folds(batched(queue, key, "false", FOLD_ITEMS, 3), second);
        assertThat(payloadOf(first)).isEqualTo(items(1));
        assertThat(payloadOf(second)).isEqualTo(items(2, 3));
      }
    }

    @Test
    void anyOtherFirstOutputFolds() {
      String queue = uniqueName("batch");
      for (String when : List.of("0", "\"\"", "[]", "{}", "true, false")) {
        String key = uniqueName("key");
        String first = id(opens(batched(queue, key, when, FOLD_ITEMS, 1)));
        folds(batched(queue, key, "false", FOLD_ITEMS, 2), first);
        assertThat(payloadOf(first)).as("when = %s", when).isEqualTo(items(1, 2));
      }
    }

    @Test
    void firstEnqueueWinsAndItsWhenDecides() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String first = id(opens(batched(queue, key, "false", FOLD_ITEMS, 1)));

      String second = id(opens(batched(queue, key, "true", "$new", 2)));

      assertThat(second).as("the open job's false when sealed it").isNotEqualTo(first);
      folds(batched(queue, key, "false", "$existing", 3), second);
      assertThat(payloadOf(second)).as("the open job's fold ($new) was used").isEqualTo(items(3));
      assertThat(server.getJob(second).get("batch").get("fold").textValue()).isEqualTo("$new");
    }

    @Test
    void thePayloadCanBeAnyJsonValue() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      ObjectNode first = JSON.createObjectNode().put("type", "t").put("queue", queue);
      first.put("payload", 1);
      first.putObject("batch").put("key", key).put("when", "true").put("fold", "$existing + $new");
      String open = id(opens(first));
      ObjectNode second = first.deepCopy();
      second.put("payload", 41);

      folds(second, open);

      assertThat(payloadOf(open)).isEqualTo(JSON.getNodeFactory().numberNode(42));
    }
  }

  /** A fold made later than the open, to tell the batch job's time from the fold's. */
  @Nested
  class OnAManualClock {
    @RegisterExtension
    static final ServerFixture manualServer = ServerFixture.perTestClassOnManualClock();

    @Test
    void aReadyEnqueueFoldsWith200AndTheBatchJobsData() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      ObjectNode first = batched(queue, key, 1);
      first.put("priority", 10);
      long openedAtMs = manualServer.nowMs();
      JsonNode opened = opens(manualServer, first);
      manualServer.advance(Duration.ofMillis(5));

      ObjectNode second = batched(uniqueName("elsewhere"), key, 2);
      second.put("type", "other");
      second.put("priority", 20);
      second.put("retry_limit", 3);
      JsonNode folded = folds(manualServer, second, id(opened));

      assertThat(folded.get("queue").textValue()).isEqualTo(queue);
      assertThat(folded.get("type").textValue()).isEqualTo("digest");
      assertThat(folded.get("priority").intValue()).isEqualTo(10);
      assertThat(folded.has("retry_limit")).isFalse();
      assertThat(folded.get("ready_at").longValue()).as("the open's ready_at, not the fold's time")
          .isEqualTo(opened.get("ready_at").longValue()).isEqualTo(openedAtMs);
      assertThat(folded.get("status").textValue()).isEqualTo("ready");
      assertThat(folded.get("batch")).isEqualTo(opened.get("batch"));
      assertThat(payloadOf(manualServer, id(opened))).isEqualTo(items(1, 2));
      assertThat(countIn(manualServer, queue)).isEqualTo(1);
      assertThat(countIn(manualServer, second.get("queue").textValue())).isZero();
    }
  }

  // ---- bulk enqueues -------------------------------------------------------------------------

  @Nested
  class Bulk {
    @Test
    void allFoldsAnswer200() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String open = id(opens(batched(queue, key, 1)));

      Reply reply = server.postJson("/jobs/bulk", bulkOf(batched(queue, key, 2),
          batched(queue, key, 3)));

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      JsonNode jobs = reply.json().get("jobs");
      assertThat(jobs).hasSize(2);
      for (JsonNode answer : jobs) {
        assertFlags(answer, false, true);
        assertThat(id(answer)).isEqualTo(open);
      }
      assertThat(payloadOf(open)).isEqualTo(items(1, 2, 3));
    }

    @Test
    void aSealMidRequestAnswers201() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String open = id(opens(batched(queue, key, 1)));

      Reply reply = server.postJson("/jobs/bulk", bulkOf(batched(queue, key, 2),
          batched(queue, key, 3), batched(queue, key, 4), batched(queue, key, 5)));

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      JsonNode jobs = reply.json().get("jobs");
      assertFlags(jobs.get(0), false, true);
      assertFlags(jobs.get(1), false, true);
      assertFlags(jobs.get(2), false, false);
      assertFlags(jobs.get(3), false, true);
      assertThat(id(jobs.get(0))).isEqualTo(open);
      assertThat(id(jobs.get(1))).isEqualTo(open);
      String sealedInto = id(jobs.get(2));
      assertThat(sealedInto).isNotEqualTo(open);
      assertThat(id(jobs.get(3))).isEqualTo(sealedInto);
      assertThat(payloadOf(open)).isEqualTo(items(1, 2, 3));
      assertThat(payloadOf(sealedInto)).isEqualTo(items(4, 5));
      assertThat(countIn(queue)).isEqualTo(2);
    }

    @Test
    void foldsIntoAJobCreatedEarlierInTheSameRequest() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");

      Reply reply = server.postJson("/jobs/bulk", bulkOf(batched(queue, key, 1),
          batched(queue, key, 2), batched(queue, key, 3)));

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      JsonNode jobs = reply.json().get("jobs");
      assertFlags(jobs.get(0), false, false);
      assertFlags(jobs.get(1), false, true);
      assertFlags(jobs.get(2), false, true);
      String open = id(jobs.get(0));
      assertThat(id(jobs.get(1))).isEqualTo(open);
      assertThat(id(jobs.get(2))).isEqualTo(open);
      assertThat(payloadOf(open)).isEqualTo(items(1, 2, 3));
      assertThat(countIn(queue)).isEqualTo(1);
    }

    @Test
    void aBulkFoldFailureIs422PrefixedAndChangesNothing() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String open = id(opens(batched(queue, key, "true", FOLD_ITEMS, 1)));
      ObjectNode poison = batched(queue, key, "true", FOLD_ITEMS);
      poison.putObject("payload").put("items", "not an array");

      Reply reply = server.postJson("/jobs/bulk", bulkOf(batched(queue, key, 2),
          batched(queue, uniqueName("other"), 7), poison));

      assertThat(error(reply, 422)).startsWith("jobs[2]: batch fold failed: ");
      assertThat(payloadOf(open)).isEqualTo(items(1));
      assertThat(countIn(queue)).isEqualTo(1);
      folds(batched(queue, key, 3), open);
      assertThat(payloadOf(open)).isEqualTo(items(1, 3));
    }
  }

  // ---- MessagePack ---------------------------------------------------------------------------

  @Nested
  class Msgpack {
    @Test
    void singleOpenAndFoldInMessagePack() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");

      Reply opened = server.postMsgpack("/jobs", toMsgpack(batched(queue, key, 1)));
      assertThat(opened.status()).as("%s", opened).isEqualTo(201);
      assertThat(opened.contentType()).isEqualTo(MSGPACK_TYPE);
      JsonNode openBody = opened.msgpack();
      assertFlags(openBody, false, false);
      assertThat(openBody.get("batch").get("key").textValue()).isEqualTo(key);
      assertThat(openBody.get("batch").get("when").textValue()).isEqualTo(WHEN_UP_TO_3);
      assertThat(openBody.get("batch").get("fold").textValue()).isEqualTo(FOLD_ITEMS);

      Reply folded = server.postMsgpack("/jobs", toMsgpack(batched(queue, key, 2)));
      assertThat(folded.status()).as("%s", folded).isEqualTo(200);
      assertThat(folded.contentType()).isEqualTo(MSGPACK_TYPE);
      JsonNode foldBody = folded.msgpack();
      assertFlags(foldBody, false, true);
      assertThat(id(foldBody)).isEqualTo(id(openBody));

      Reply read = server.get("/jobs/" + id(openBody), "Accept", MSGPACK_TYPE);
      assertThat(read.status()).isEqualTo(200);
      assertThat(read.msgpack().get("payload")).isEqualTo(items(1, 2));
      assertThat(read.msgpack().get("batch")).isEqualTo(openBody.get("batch"));
    }

    @Test
    void bulkFoldsInMessagePackAndJsonInteroperate() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String open = id(opens(batched(queue, key, 1)));

      Reply reply = server.postMsgpack("/jobs/bulk", toMsgpack(bulkOf(batched(queue, key, 2),
          batched(queue, key, 3))));

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      for (JsonNode answer : reply.msgpack().get("jobs")) {
        assertFlags(answer, false, true);
        assertThat(id(answer)).isEqualTo(open);
      }
      assertThat(payloadOf(open)).isEqualTo(items(1, 2, 3));
    }

    @Test
    void validationErrorsInMessagePack() {
      String queue = uniqueName("batch");
      Reply reply = server.postMsgpack("/jobs", toMsgpack(batched(queue, uniqueName("key"),
          "((", FOLD_ITEMS, 1)));
      assertThat(reply.status()).as("%s", reply).isEqualTo(422);
      assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(reply.msgpack().get("error").textValue())
          .startsWith("batch expression: when: ");
      assertThat(countIn(queue)).isZero();
    }
  }

  // ---- validation ----------------------------------------------------------------------------

  @Nested
  class Validation {
    private void assertRejected(ObjectNode request, int status, String messagePrefix) {
      String queue = request.get("queue").textValue();
      Reply reply = server.postJson("/jobs", request);
      assertThat(error(reply, status)).startsWith(messagePrefix);
      assertThat(countIn(queue)).as("nothing stored").isZero();
    }

    @Test
    void compileErrorsAre422BatchExpression() {
      String queue = uniqueName("invalid");
      assertRejected(batched(queue, "k", "$existing.items |", FOLD_ITEMS, 1), 422,
          "batch expression: when: ");
      assertRejected(batched(queue, "k", "true", "{items: ", 1), 422,
          "batch expression: fold: ");
      assertRejected(batched(queue, "k", "no_such_fn(1)", FOLD_ITEMS, 1), 422,
          "batch expression: when: ");
      assertRejected(batched(queue, "k", "true", "no_such_fn", 1), 422,
          "batch expression: fold: ");
    }

    @Test
    void runtimeErrorsAre422BatchDryRun() {
      String queue = uniqueName("invalid");
      assertRejected(batched(queue, "k", "$new.items + 1", FOLD_ITEMS, 1), 422,
          "batch dry-run: when: ");
      assertRejected(batched(queue, "k", "true", "$new.items | keys | error(\"boom\")", 1), 422,
          "batch dry-run: fold: ");
      assertRejected(batched(queue, "k", "true", "empty", 1), 422, "batch dry-run: fold: ");
      assertRejected(batched(queue, "k", "true", "$existing, $new", 1), 422,
          "batch dry-run: fold: ");
    }

    @Test
    void aFalsyWhenIsNotAValidationError() {
      String queue = uniqueName("valid");
      opens(batched(queue, uniqueName("key"), "false", FOLD_ITEMS, 1));
      opens(batched(queue, uniqueName("key"), "empty", FOLD_ITEMS, 1));
    }

    @Test
    void aFoldThatFailsOnTheRealPayloadsIs422AndChangesNothing() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String open = id(opens(batched(queue, key, "true", FOLD_ITEMS, 1)));
      ObjectNode poison = batched(queue, key, "true", FOLD_ITEMS);
      poison.putObject("payload").put("items", "text");

      Reply reply = server.postJson("/jobs", poison);

      assertThat(error(reply, 422)).startsWith("batch fold failed: ");
      assertThat(payloadOf(open)).isEqualTo(items(1));
      assertThat(countIn(queue)).isEqualTo(1);
    }

    @Test
    void uniqueKeyWithBatchIs400() {
      String queue = uniqueName("invalid");
      ObjectNode request = batched(queue, "k", 1);
      request.put("unique_key", "u");
      assertRejected(request, 400, "unique_key and batch cannot be combined");
      assertThat(server.postJson("/jobs", request).error())
          .isEqualTo("unique_key and batch cannot be combined");

      ObjectNode withBadExpression = batched(queue, "k", "((", FOLD_ITEMS, 1);
      withBadExpression.put("unique_key", "u");
      assertRejected(withBadExpression, 400, "unique_key and batch cannot be combined");
    }

    @Test
    void malformedBatchIs400InvalidJson() {
      String queue = uniqueName("invalid");
      ObjectNode notObject = batched(queue, "k", 1);
      notObject.put("batch", "k");
      assertRejected(notObject, 400, "invalid JSON: ");

      ObjectNode missingFold = batched(queue, "k", 1);
      ((ObjectNode) missingFold.get("batch")).remove("fold");
      assertRejected(missingFold, 400, "invalid JSON: ");

      ObjectNode missingKey = batched(queue, "k", 1);
      ((ObjectNode) missingKey.get("batch")).remove("key");
      assertRejected(missingKey, 400, "invalid JSON: ");

      ObjectNode numericWhen = batched(queue, "k", 1);
      ((ObjectNode) numericWhen.get("batch")).put("when", 1);
      assertRejected(numericWhen, 400, "invalid JSON: ");
    }

    @Test
    void bulkErrorsArePrefixedAndStoreNothing() {
      String queue = uniqueName("invalid");
      String key = uniqueName("key");

      Reply expression = server.postJson("/jobs/bulk", bulkOf(batched(queue, key, 1),
          batched(queue, key, "true", "{", 2)));
      assertThat(error(expression, 422)).startsWith("jobs[1]: batch expression: fold: ");

      ObjectNode unique = batched(queue, key, 3);
      unique.put("unique_key", "u");
      Reply combined = server.postJson("/jobs/bulk", bulkOf(batched(queue, key, 1), unique));
      assertThat(error(combined, 400))
          .isEqualTo("jobs[1]: unique_key and batch cannot be combined");

      assertThat(countIn(queue)).isZero();
      opens(batched(queue, key, 9)); // no batch was opened by the refused requests
    }

    @Test
    void inBulkA400OfALaterJobBeatsA422OfAnEarlierOne() {
      String queue = uniqueName("invalid");
      ObjectNode badQueue = batched("", "k", 2);

      Reply reply = server.postJson("/jobs/bulk", bulkOf(
          batched(queue, "k", "((", FOLD_ITEMS, 1), badQueue));

      assertThat(error(reply, 400)).isEqualTo("jobs[1]: queue must not be empty");
      assertThat(countIn(queue)).isZero();
    }
  }

  // ---- scheduling, reads, take streams, budgets ----------------------------------------------

  @Nested
  class Lifecycle {
    @Test
    void aScheduledBatchedEnqueueNeitherFoldsNorOpens() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String open = id(opens(batched(queue, key, 1)));
      long later = System.currentTimeMillis() + 3_600_000;
      ObjectNode scheduled = batched(queue, key, 2);
      scheduled.put("ready_at", later);

      JsonNode answer = opens(scheduled);

      assertThat(id(answer)).isNotEqualTo(open);
      assertThat(answer.get("status").textValue()).isEqualTo("scheduled");
      assertThat(answer.get("ready_at").longValue()).isEqualTo(later);
      assertThat(answer.get("batch").get("key").textValue()).isEqualTo(key);
      assertThat(payloadOf(open)).isEqualTo(items(1));
      assertThat(payloadOf(id(answer))).isEqualTo(items(2));
      folds(batched(queue, key, 3), open);
      assertThat(payloadOf(open)).isEqualTo(items(1, 3));
      server.delete("/jobs/" + id(answer));
    }

    @Test
    void theTakeStreamDeliversTheFoldedPayloadAndATakenJobIsNoLongerFoldedInto() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String open = id(opens(batched(queue, key, 1)));
      folds(batched(queue, key, 2), open);
      folds(batched(queue, key, 3), open);

      try (WorkerStream stream = server.take("queue=" + queue)) {
        JsonNode delivered = stream.nextJob();
        assertThat(id(delivered)).isEqualTo(open);
        assertThat(delivered.get("payload")).isEqualTo(items(1, 2, 3));
        assertThat(delivered.get("batch").get("key").textValue()).isEqualTo(key);

        String next = id(opens(batched(queue, key, 4)));
        assertThat(next).isNotEqualTo(open);
        folds(batched(queue, key, 5), next);
        assertThat(payloadOf(open)).isEqualTo(items(1, 2, 3));
        server.ack(open);
        JsonNode second = stream.nextJob();
        assertThat(id(second)).isEqualTo(next);
        assertThat(second.get("payload")).isEqualTo(items(4, 5));
        server.ack(next);
      }
    }

    @Test
    void aDeletedOpenJobIsNotFoldedInto() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String open = id(opens(batched(queue, key, 1)));
      assertThat(server.delete("/jobs/" + open).status()).isEqualTo(204);

      String next = id(opens(batched(queue, key, 2)));

      assertThat(next).isNotEqualTo(open);
      assertThat(payloadOf(next)).isEqualTo(items(2));
    }

    @Test
    void aFoldingRequestsCreateWithBudgetIsCreatedButNotBound() {
      String queue = uniqueName("batch");
      String key = uniqueName("key");
      String budget = uniqueName("fold-budget");
      String open = id(opens(batched(queue, key, 1)));
      ObjectNode request = batched(queue, key, 2);
      request.putArray("budgets").addObject().put("key", budget).putObject("create_with")
          .put("allocation", 5).putObject("strategy").put("type", "while_in_flight");

      JsonNode folded = folds(request, open);

      assertThat(folded.has("budgets")).as("the batch job keeps its own bindings").isFalse();
      assertThat(server.get("/budgets/" + budget).status()).isEqualTo(200);
      assertThat(server.getJob(open).has("budgets")).isFalse();
    }
  }

  // ---- concurrency ---------------------------------------------------------------------------

  @Nested
  class Concurrency {
    static final int CLIENTS = 16;
    static final int ITEMS_EACH = 25;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrentFoldsLoseAndDuplicateNothing() throws Exception {
      String queue = uniqueName("concurrent");
      String key = uniqueName("key");
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5)).build();
      URI uri = server.uri("/jobs");
      ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<List<JsonNode>>> results = new ArrayList<>();
      try {
        for (int c = 0; c < CLIENTS; c++) {
          int client = c;
          results.add(pool.submit(() -> {
            start.await();
            List<JsonNode> answers = new ArrayList<>();
            for (int i = 0; i < ITEMS_EACH; i++) {
              ObjectNode request = batched(queue, key, "true", FOLD_ITEMS,
                  client * 1000 + i);
              HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri)
                  .timeout(Duration.ofSeconds(20))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(request.toString(),
                      StandardCharsets.UTF_8))
                  .build(), HttpResponse.BodyHandlers.ofString());
              JsonNode body = JSON.readTree(response.body());
              ((ObjectNode) body).put("_status", response.statusCode());
              answers.add(body);
            }
            return answers;
          }));
        }
        start.countDown();
        List<JsonNode> answers = new ArrayList<>();
        for (Future<List<JsonNode>> result : results) {
          answers.addAll(result.get(50, TimeUnit.SECONDS));
        }

        Map<Integer, Integer> statuses = new TreeMap<>();
        Set<String> jobIds = new HashSet<>();
        int created = 0;
        for (JsonNode answer : answers) {
          int status = answer.get("_status").intValue();
          statuses.merge(status, 1, Integer::sum);
          assertThat(status).as("answer %s", answer).isIn(200, 201);
          assertThat(answer.get("folded").booleanValue()).isEqualTo(status == 200);
          jobIds.add(id(answer));
          if (status == 201) {
            created++;
          }
        }
        assertThat(answers).hasSize(CLIENTS * ITEMS_EACH);
        assertThat(created).as("statuses %s", statuses).isEqualTo(1);
        assertThat(jobIds).as("one batch job, as 'when' is always true").hasSize(1);
        assertThat(countIn(queue)).isEqualTo(1);

        Map<Integer, Integer> seen = new HashMap<>();
        for (String jobId : jobIds) {
          for (JsonNode item : payloadOf(jobId).get("items")) {
            seen.merge(item.intValue(), 1, Integer::sum);
          }
        }
        Set<Integer> expected = new HashSet<>();
        for (int c = 0; c < CLIENTS; c++) {
          for (int i = 0; i < ITEMS_EACH; i++) {
            expected.add(c * 1000 + i);
          }
        }
        assertThat(seen.keySet()).as("every item folded in").isEqualTo(expected);
        assertThat(seen.values()).as("no item twice").containsOnly(1);

        // The folded payload is what a worker receives.
        try (WorkerStream stream = server.take("queue=" + queue)) {
          JsonNode delivered = stream.nextJob();
          assertThat(delivered.get("payload").get("items")).hasSize(CLIENTS * ITEMS_EACH);
          server.ack(id(delivered));
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }
}

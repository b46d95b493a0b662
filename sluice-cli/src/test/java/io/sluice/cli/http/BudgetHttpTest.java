package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.assertError;
import static io.sluice.cli.http.BudgetClient.assertErrorStartingWith;
import static io.sluice.cli.http.BudgetClient.assertMsgpackError;
import static io.sluice.cli.http.BudgetClient.binding;
import static io.sluice.cli.http.BudgetClient.bindingCreating;
import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.echoed;
import static io.sluice.cli.http.BudgetClient.parse;
import static io.sluice.cli.http.BudgetClient.path;
import static io.sluice.cli.http.BudgetClient.timeBased;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.engine.EngineConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The budget resource (BUDGETS.md §2, §8.1–§8.6, §8.8, §11) and budget bindings on enqueue
 * (§4, examples E14, E16, E17): shapes, merge semantics, and every class of bad input — 400 for
 * structural problems, 422 for semantic ones, 404 for unknown budgets — in JSON and MessagePack.
 * Tests share one server and use their own budget keys and queues.
 */
class BudgetHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static final BudgetClient budgets = new BudgetClient(server);

  static String newKey(String prefix) {
    return uniqueName(prefix);
  }

  @Nested
  class Resource {
    @Test
    void postCreatesWithEqualTimestampsAndTheExactShape() {
      String key = newKey("post");
      long beforeMs = System.currentTimeMillis();

      Reply reply = budgets.create(key, timeBased(10000, 3600000, 500));

      long afterMs = System.currentTimeMillis();
      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      assertThat(reply.contentType()).isEqualTo("application/json");
      JsonNode budget = reply.json();
      assertThat(EnqueueHttpTest.fieldNames(budget))
          .containsExactly("allocation", "created_at", "key", "strategy", "updated_at");
      assertThat(budget.get("key").textValue()).isEqualTo(key);
      assertThat(budget.get("allocation").intValue()).isEqualTo(10000);
      assertThat(budget.get("strategy")).isEqualTo(parse(
          "{\"type\":\"time_based\",\"duration_ms\":3600000,\"burst\":500}"));
      assertThat(budget.get("created_at").longValue()).isBetween(beforeMs, afterMs);
      assertThat(budget.get("updated_at")).isEqualTo(budget.get("created_at"));
      assertThat(budgets.fetch(key)).isEqualTo(budget);
    }

    @Test
    void whileInFlightStrategySerialisesAsTypeOnly() {
      String key = newKey("wif");

      JsonNode budget = budgets.define(key, whileInFlight(3));

      assertThat(budget.get("strategy")).isEqualTo(parse("{\"type\":\"while_in_flight\"}"));
      assertThat(budget.get("allocation").intValue()).isEqualTo(3);
    }

    @Test
    void bodyKeyIsIgnoredThePathIsAuthoritative() {
      String key = newKey("path-wins");
      ObjectNode body = whileInFlight(2).put("key", "something-else");

      Reply reply = budgets.create(key, body);

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      assertThat(reply.json().get("key").textValue()).isEqualTo(key);
      assertThat(budgets.get("something-else").status()).isEqualTo(404);
    }

    @Test
    void duplicatePostIsConflictAndLeavesThePolicy() {
      String key = newKey("dup");
      JsonNode first = budgets.define(key, whileInFlight(4));

      assertError(budgets.create(key, whileInFlight(9)), 409,
          "budget '" + key + "' already exists");
      assertThat(budgets.fetch(key)).isEqualTo(first);
    }

    @Test
    void patchNullBurstClearsIt() {
      String key = newKey("patch-null-burst");
      budgets.define(key, timeBased(10, 1000, 3));

      JsonNode patched = budgets.patchOk(key, parse("{\"strategy\":{\"burst\":null}}"));

      assertThat(patched.get("strategy"))
          .isEqualTo(parse("{\"type\":\"time_based\",\"duration_ms\":1000}"));
    }

    @Test
    void patchChangingTheTypeDropsTheOldStrategyFields() {
      String key = newKey("patch-type");
      budgets.define(key, timeBased(10, 1000, 20));

      JsonNode toConcurrency =
          budgets.patchOk(key, parse("{\"strategy\":{\"type\":\"while_in_flight\"}}"));
      assertThat(toConcurrency.get("strategy"))
          .isEqualTo(parse("{\"type\":\"while_in_flight\"}"));

      assertError(budgets.patch(key, "{\"strategy\":{\"type\":\"time_based\"}}"), 422,
          "time_based budget requires duration_ms");

      JsonNode toRate = budgets.patchOk(key,
          parse("{\"strategy\":{\"type\":\"time_based\",\"duration_ms\":500}}"));
      assertThat(toRate.get("strategy"))
          .isEqualTo(parse("{\"type\":\"time_based\",\"duration_ms\":500}"));
    }

    @Test
    void patchIsValidatedAsAWholeAfterMerging() {
      String key = newKey("patch-merged");
      budgets.define(key, whileInFlight(5));

      assertError(budgets.patch(key, "{\"strategy\":{\"burst\":3}}"), 422,
          "while_in_flight budget cannot take a burst");
      assertError(budgets.patch(key, "{\"strategy\":{\"duration_ms\":3}}"), 422,
          "while_in_flight budget cannot take a duration_ms");
      assertError(budgets.patch(key, "{\"allocation\":0}"), 422,
          "budget allocation must be at least 1");
      assertThat(budgets.fetch(key).get("strategy"))
          .isEqualTo(parse("{\"type\":\"while_in_flight\"}"));
    }

    @Test
    void patchWithTheSameTypeStillMerges() {
      String key = newKey("patch-same-type");
      budgets.define(key, timeBased(10, 1000));

      JsonNode patched = budgets.patchOk(key,
          parse("{\"strategy\":{\"type\":\"time_based\",\"burst\":5}}"));
      JsonNode untouched = budgets.patchOk(key, parse("{\"strategy\":{}}"));

      assertThat(patched.get("strategy"))
          .isEqualTo(parse("{\"type\":\"time_based\",\"duration_ms\":1000,\"burst\":5}"));
      assertThat(untouched.get("strategy")).isEqualTo(patched.get("strategy"));
    }

    static String hugePeriodPolicy(String durationMs) {
      return "{\"allocation\":1000000,\"strategy\":{\"type\":\"time_based\","
          + "\"duration_ms\":" + durationMs + "}}";
    }

    /** Decision (docs/decisions.md): durations beyond 2^63-1 ms are stored as 2^63-1. */
    @Test
    void durationUpToTheUnsigned64BitMaximumIsAcceptedAndSaturates() {
      String key = newKey("huge-period");

      Reply reply = budgets.sendJson("PUT", path(key), hugePeriodPolicy("18446744073709551615"));

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      assertThat(reply.json().get("strategy").get("duration_ms").longValue())
          .isEqualTo(Long.MAX_VALUE);
      assertThat(budgets.fetch(key)).isEqualTo(reply.json());
    }

    @Test
    void durationBeyondUnsigned64BitsIsInvalidJson() {
      String key = newKey("too-long-period");

      assertErrorStartingWith(budgets.sendJson("PUT", path(key),
          hugePeriodPolicy("18446744073709551616")), 400, "invalid JSON: ");
      assertThat(budgets.get(key).status()).isEqualTo(404);
    }

    @Test
    void unknownQueryParametersAreRejected() {
      String key = newKey("query");
      budgets.define(key, whileInFlight(1));

      assertErrorStartingWith(server.get("/budgets?limit=5"), 400, "invalid query parameters: ");
      assertErrorStartingWith(server.get(path(key) + "?x=1"), 400, "invalid query parameters: ");
    }

    @Test
    void putCreatesWithOk() {
      String key = newKey("put-new");

      JsonNode budget = budgets.define(key, whileInFlight(1));

      assertThat(budget.get("updated_at")).isEqualTo(budget.get("created_at"));
      assertThat(budgets.fetch(key)).isEqualTo(budget);
    }

    @Test
    void listIsSortedByKeyInByteOrder() {
      String suffix = newKey("");
      List<String> keys = List.of("b" + suffix, "B" + suffix, "a" + suffix, "é" + suffix);
      for (String key : keys) {
        budgets.define(key, whileInFlight(1));
      }

      Reply reply = server.get("/budgets");

      assertThat(reply.status()).isEqualTo(200);
      JsonNode list = reply.json().get("budgets");
      assertThat(list.isArray()).isTrue();
      List<String> listed = new java.util.ArrayList<>();
      list.forEach(budget -> listed.add(budget.get("key").textValue()));
      assertThat(listed).containsAll(keys);
      List<byte[]> bytes = listed.stream().map(k -> k.getBytes(StandardCharsets.UTF_8)).toList();
      for (int i = 1; i < bytes.size(); i++) {
        assertThat(java.util.Arrays.compareUnsigned(bytes.get(i - 1), bytes.get(i)))
            .as("%s before %s", listed.get(i - 1), listed.get(i)).isNegative();
      }
      for (JsonNode budget : list) {
        if (keys.contains(budget.get("key").textValue())) {
          assertThat(budget).isEqualTo(budgets.fetch(budget.get("key").textValue()));
        }
      }
    }

    @Test
    void keysArePercentDecodedAndCaseSensitive() {
      String key = newKey("Café Key/");

      JsonNode created = budgets.define(key, whileInFlight(2));

      assertThat(created.get("key").textValue()).isEqualTo(key);
      assertThat(budgets.fetch(key)).isEqualTo(created);
      String lower = key.toLowerCase(java.util.Locale.ROOT);
      assertError(budgets.get(lower), 404, "budget '" + lower + "' not found");
    }

    @Test
    void deleteRemovesTheBudget() {
      String key = newKey("delete");
      budgets.define(key, whileInFlight(2));

      Reply reply = budgets.delete(key);

      assertThat(reply.status()).as("%s", reply).isEqualTo(204);
      assertThat(reply.body()).isEmpty();
      assertError(budgets.get(key), 404, "budget '" + key + "' not found");
      assertError(budgets.delete(key), 404, "budget '" + key + "' not found");
      assertThat(budgets.create(key, whileInFlight(3)).status()).isEqualTo(201);
    }

    @Test
    void budgetReferencedOnlyByFinishedJobsDeletesCleanly() {
      String key = newKey("finished-refs");
      String queue = uniqueName("finished-refs");
      budgets.define(key, whileInFlight(2));
      ObjectNode request = boundJob(queue, key);
      try (ServerFixture.Taken taken = server.takeOne(request)) {
        assertError(budgets.delete(key), 409, "budget '" + key
            + "' is referenced by 1 unfinished job. Delete them or wait for them to finish "
            + "before deleting it.");
        server.ack(taken.id());
      }

      assertThat(budgets.delete(key).status()).isEqualTo(204);
    }

    @Test
    void budgetsCanBeReadAsMessagePack() {
      String key = newKey("mp-read");
      JsonNode created = budgets.define(key, timeBased(7, 900, 2));

      Reply one = server.get(path(key), "Accept", MSGPACK_TYPE);
      Reply all = server.get("/budgets", "Accept", MSGPACK_TYPE);

      assertThat(one.status()).isEqualTo(200);
      assertThat(one.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(one.msgpack()).isEqualTo(created);
      assertThat(one.msgpack().get("allocation").isIntegralNumber()).isTrue();
      assertThat(all.status()).isEqualTo(200);
      assertThat(all.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(all.msgpack().get("budgets")).contains(created);
    }

    @Test
    void budgetsCanBeWrittenAsMessagePack() {
      String key = newKey("mp-write");

      Reply created = budgets.sendMsgpack("POST", path(key), timeBased(5, 100));
      Reply patched = budgets.sendMsgpack("PATCH", path(key), parse("{\"allocation\":6}"));

      assertThat(created.status()).as("%s", created).isEqualTo(201);
      assertThat(created.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(created.msgpack().get("strategy"))
          .isEqualTo(parse("{\"type\":\"time_based\",\"duration_ms\":100}"));
      assertThat(patched.status()).as("%s", patched).isEqualTo(200);
      assertThat(patched.msgpack().get("allocation").intValue()).isEqualTo(6);
    }
  }

  /** How a change moves {@code updated_at} and keeps {@code created_at}, to the millisecond. */
  @Nested
  class OnAManualClock {
    @RegisterExtension
    static final ServerFixture manualServer = ServerFixture.perTestClassOnManualClock();

    static final BudgetClient manualBudgets = new BudgetClient(manualServer);

    static final Duration LATER = Duration.ofMillis(5);

    @Test
    void putReplacesWholeKeepsCreatedAtAndClearsAnOmittedBurst() {
      String key = newKey("put");
      long createdMs = manualServer.nowMs();
      JsonNode first = manualBudgets.define(key, timeBased(10, 1000, 40));
      manualServer.advance(LATER);

      JsonNode second = manualBudgets.define(key, timeBased(20, 2000));

      assertThat(first.get("created_at").longValue()).isEqualTo(createdMs);
      assertThat(second.get("created_at")).isEqualTo(first.get("created_at"));
      assertThat(second.get("updated_at").longValue())
          .isEqualTo(first.get("updated_at").longValue() + LATER.toMillis());
      assertThat(second.get("allocation").intValue()).isEqualTo(20);
      assertThat(second.get("strategy"))
          .isEqualTo(parse("{\"type\":\"time_based\",\"duration_ms\":2000}"));
      assertThat(manualBudgets.fetch(key)).isEqualTo(second);
    }

    @Test
    void patchMergesTheStrategyFieldByField() {
      String key = newKey("patch");
      JsonNode first = manualBudgets.define(key, timeBased(10, 1000));
      manualServer.advance(LATER);

      JsonNode patched = manualBudgets.patchOk(key, parse("{\"strategy\":{\"burst\":50}}"));

      assertThat(patched.get("allocation").intValue()).isEqualTo(10);
      assertThat(patched.get("strategy"))
          .isEqualTo(parse("{\"type\":\"time_based\",\"duration_ms\":1000,\"burst\":50}"));
      assertThat(patched.get("created_at")).isEqualTo(first.get("created_at"));
      assertThat(patched.get("updated_at").longValue())
          .isEqualTo(first.get("updated_at").longValue() + LATER.toMillis());

      JsonNode allocation = manualBudgets.patchOk(key, parse("{\"allocation\":30}"));
      assertThat(allocation.get("strategy")).isEqualTo(patched.get("strategy"));
      assertThat(allocation.get("allocation").intValue()).isEqualTo(30);
    }

    @Test
    void emptyPatchOnlyBumpsUpdatedAt() {
      String key = newKey("patch-empty");
      JsonNode first = manualBudgets.define(key, whileInFlight(5));
      manualServer.advance(LATER);

      JsonNode patched = manualBudgets.patchOk(key, JSON.createObjectNode());

      assertThat(patched.get("updated_at").longValue())
          .isEqualTo(first.get("updated_at").longValue() + LATER.toMillis());
      ObjectNode expected = first.deepCopy();
      expected.set("updated_at", patched.get("updated_at"));
      assertThat(patched).isEqualTo(expected);
    }
  }

  @Nested
  class NotFound {
    @Test
    void unknownBudgetIsNotFoundOnGetPatchAndDelete() {
      String key = newKey("missing");
      String message = "budget '" + key + "' not found";

      assertError(budgets.get(key), 404, message);
      assertError(budgets.patch(key, "{\"allocation\":3}"), 404, message);
      assertError(budgets.delete(key), 404, message);
      assertError(budgets.get(key), 404, message); // PATCH never creates
    }

    @Test
    void notFoundIsMessagePackWhenAsked() {
      String key = newKey("missing-mp");
      String message = "budget '" + key + "' not found";

      assertMsgpackError(server.get(path(key), "Accept", MSGPACK_TYPE), 404, message);
      assertMsgpackError(budgets.sendMsgpack("PATCH", path(key), parse("{\"allocation\":3}")),
          404, message);
      assertMsgpackError(budgets.sendMsgpack("DELETE", path(key), null), 404, message);
    }
  }

  @Nested
  class StructuralErrors {
    static Stream<String> malformedPolicies() {
      return Stream.of(
          "{\"strategy\":{\"type\":\"while_in_flight\"}}", // allocation missing
          "{\"allocation\":\"10\",\"strategy\":{\"type\":\"while_in_flight\"}}",
          "{\"allocation\":null,\"strategy\":{\"type\":\"while_in_flight\"}}",
          "{\"allocation\":2.5,\"strategy\":{\"type\":\"while_in_flight\"}}",
          "{\"allocation\":-1,\"strategy\":{\"type\":\"while_in_flight\"}}",
          "{\"allocation\":4294967296,\"strategy\":{\"type\":\"while_in_flight\"}}",
          "{\"allocation\":10}", // strategy missing
          "{\"allocation\":10,\"strategy\":\"while_in_flight\"}",
          "{\"allocation\":10,\"strategy\":null}",
          "{\"allocation\":10,\"strategy\":{}}", // strategy.type missing
          "{\"allocation\":10,\"strategy\":{\"type\":5}}",
          "{\"allocation\":10,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":\"60\"}}",
          "{\"allocation\":10,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":-1}}",
          "{\"allocation\":10,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":9,"
              + "\"burst\":\"x\"}}",
          "[]",
          "not json",
          "{\"allocation\":10,");
    }

    @ParameterizedTest
    @MethodSource("malformedPolicies")
    void postWithMalformedPolicyIsInvalidJson(String body) {
      String key = newKey("bad-post");

      assertErrorStartingWith(budgets.sendJson("POST", path(key), body), 400, "invalid JSON: ");
      assertThat(budgets.get(key).status()).isEqualTo(404);
    }

    @ParameterizedTest
    @MethodSource("malformedPolicies")
    void putWithMalformedPolicyIsInvalidJsonAndChangesNothing(String body) {
      String key = newKey("bad-put");
      JsonNode before = budgets.define(key, whileInFlight(3));

      assertErrorStartingWith(budgets.sendJson("PUT", path(key), body), 400, "invalid JSON: ");
      assertThat(budgets.fetch(key)).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {
      "{\"allocation\":\"10\"}",
      "{\"allocation\":-3}",
      "{\"strategy\":\"time_based\"}",
      "{\"strategy\":{\"type\":7}}",
      "{\"strategy\":{\"burst\":\"big\"}}",
      "[1]",
      "{"
    })
    void patchWithMalformedBodyIsInvalidJson(String body) {
      String key = newKey("bad-patch");
      JsonNode before = budgets.define(key, timeBased(3, 1000));

      assertErrorStartingWith(budgets.patch(key, body), 400, "invalid JSON: ");
      assertThat(budgets.fetch(key)).isEqualTo(before);
    }

    @Test
    void malformedMessagePackPolicyIsInvalidMessagePack() {
      String key = newKey("bad-mp");

      Reply missing = budgets.sendMsgpack("POST", path(key),
          parse("{\"strategy\":{\"type\":\"while_in_flight\"}}"));
      Reply wrongType = budgets.sendMsgpack("PUT", path(key),
          parse("{\"allocation\":\"many\",\"strategy\":{\"type\":\"while_in_flight\"}}"));

      for (Reply reply : List.of(missing, wrongType)) {
        assertThat(reply.status()).as("%s", reply).isEqualTo(400);
        assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
        assertThat(reply.msgpack().get("error").textValue()).startsWith("invalid MessagePack: ");
      }
      assertThat(budgets.get(key).status()).isEqualTo(404);
    }

    @Test
    void seedCreateWithTypoIsInvalidJson() {
      String queue = uniqueName("typo");
      String existing = newKey("image-service");
      String created = newKey("notifications");
      budgets.define(existing, timeBased(10000, 3600000));
      String body = """
          {"type": "work", "queue": "%s", "payload": {},
           "budgets": [
              {"key": "%s"},
              {
                  "key": "%s",
                  "cost": 5,
                  "create_with": {
                      "allocaton": 50000,
                      "strategy": {
                          "type": "while_in_flight"
                      }
                  }
              }
          ]}""".formatted(queue, existing, created);

      assertErrorStartingWith(server.postJson("/jobs", body), 400, "invalid JSON: ");
      assertThat(budgets.get(created).status()).isEqualTo(404);
      server.assertNothingReady(queue);
    }

    @Test
    void structurallyMalformedCreateWithIsInvalidEvenWhenTheBudgetExists() {
      String queue = uniqueName("typo-existing");
      String key = newKey("exists");
      budgets.define(key, whileInFlight(2));
      ObjectNode job = boundJob(queue, bindingCreating(key, parse("{\"allocation\":\"x\"}")));

      assertErrorStartingWith(server.postJson("/jobs", job), 400, "invalid JSON: ");
      server.assertNothingReady(queue);
    }

    @ParameterizedTest
    @ValueSource(strings = {
      "\"cpu\"", "[\"cpu\"]", "[{\"cost\":1}]", "[{\"key\":5}]", "[{\"key\":\"k\",\"cost\":\"2\"}]",
      "[{\"key\":\"k\",\"cost\":-1}]", "[{\"key\":\"k\",\"create_with\":\"x\"}]"
    })
    void malformedBindingsAreInvalidJson(String bindings) {
      String queue = uniqueName("bad-bindings");
      String body = "{\"type\":\"work\",\"queue\":\"" + queue + "\",\"payload\":{},\"budgets\":"
          + bindings + "}";

      assertErrorStartingWith(server.postJson("/jobs", body), 400, "invalid JSON: ");
      server.assertNothingReady(queue);
    }
  }

  @Nested
  class SemanticErrors {
    static Stream<Arguments> invalidPolicies() {
      return Stream.of(
          Arguments.of(whileInFlight(0), "budget allocation must be at least 1"),
          Arguments.of(whileInFlight(1000001), "budget allocation must not exceed 1000000"),
          Arguments.of(timeBased(0, 1000), "budget allocation must be at least 1"),
          Arguments.of(parse("{\"allocation\":5,\"strategy\":{\"type\":\"time_based\"}}"),
              "time_based budget requires duration_ms"),
          Arguments.of(timeBased(5, 0), "time_based budget duration_ms must be at least 1"),
          Arguments.of(timeBased(5, 1000, 0), "time_based budget burst must be at least 1"),
          Arguments.of(timeBased(5, 1000, 1000001),
              "time_based budget burst must not exceed 1000000"),
          Arguments.of(parse("{\"allocation\":5,\"strategy\":{\"type\":\"while_in_flight\","
              + "\"duration_ms\":1000}}"), "while_in_flight budget cannot take a duration_ms"),
          Arguments.of(parse("{\"allocation\":5,\"strategy\":{\"type\":\"while_in_flight\","
              + "\"burst\":2}}"), "while_in_flight budget cannot take a burst"),
          Arguments.of(parse("{\"allocation\":5,\"strategy\":{\"type\":\"leaky\"}}"),
              "unknown budget strategy: leaky"));
    }

    @ParameterizedTest
    @MethodSource("invalidPolicies")
    void invalidPolicyIsUnprocessableOnPostAndPut(JsonNode policy, String message) {
      String key = newKey("invalid");

      assertError(budgets.create(key, policy), 422, message);
      assertError(budgets.put(key, policy), 422, message);
      assertThat(budgets.get(key).status()).isEqualTo(404);
    }

    @Test
    void largestValuesAreValidAndBurstMayExceedAllocation() {
      String key = newKey("limits");

      JsonNode budget = budgets.define(key, timeBased(1000000, 1, 1000000));
      JsonNode above = budgets.define(key, timeBased(1, 3600000, 1000000));

      assertThat(budget.get("allocation").intValue()).isEqualTo(1000000);
      assertThat(above.get("strategy").get("burst").intValue()).isEqualTo(1000000);
    }

    @Test
    void invalidPolicyIsUnprocessableInMessagePack() {
      String key = newKey("invalid-mp");

      assertMsgpackError(budgets.sendMsgpack("POST", path(key), whileInFlight(0)), 422,
          "budget allocation must be at least 1");
      assertMsgpackError(budgets.sendMsgpack("PUT", path(key),
              parse("{\"allocation\":5,\"strategy\":{\"type\":\"leaky\"}}")), 422,
          "unknown budget strategy: leaky");
    }

    static Stream<Arguments> badKeys() {
      return Stream.of(
          Arguments.of("a,b", "budget key must not contain ','"),
          Arguments.of("a\0b", "budget key must not contain null bytes"),
          Arguments.of("a*b", "budget key must not contain '*' (reserved)"),
          Arguments.of("x?[", "budget key must not contain '?' (reserved)"),
          Arguments.of("x]y", "budget key must not contain ']' (reserved)"),
          Arguments.of("{k", "budget key must not contain '{' (reserved)"),
          Arguments.of("k}", "budget key must not contain '}' (reserved)"),
          Arguments.of("back\\slash", "budget key must not contain '\\' (reserved)"));
    }

    @ParameterizedTest
    @MethodSource("badKeys")
    void badKeyIsUnprocessableOnBudgetEndpoints(String key, String message) {
      assertError(budgets.create(key, whileInFlight(1)), 422, message);
      assertError(budgets.put(key, whileInFlight(1)), 422, message);
    }

    @ParameterizedTest
    @MethodSource("badKeys")
    void badKeyInABindingIsUnprocessable(String key, String message) {
      String queue = uniqueName("bad-key-binding");

      Reply reply = server.postJson("/jobs",
          boundJob(queue, bindingCreating(key, whileInFlight(1))));

      assertError(reply, 422, message);
      server.assertNothingReady(queue);
    }

    @Test
    void emptyKeyInABindingIsUnprocessable() {
      String queue = uniqueName("empty-key");

      assertError(server.postJson("/jobs", boundJob(queue, bindingCreating("",
          whileInFlight(1)))), 422, "budget key must not be empty");
      server.assertNothingReady(queue);
    }

    @Test
    void badKeyIsUnprocessableInMessagePack() {
      assertMsgpackError(budgets.sendMsgpack("POST", path("a,b"), whileInFlight(1)), 422,
          "budget key must not contain ','");
    }

    @ParameterizedTest
    @ValueSource(strings = {"allocation", "strategy", "strategy.type", "strategy.duration_ms"})
    void nullsInPatchAreUnprocessable(String field) {
      String key = newKey("patch-null");
      JsonNode before = budgets.define(key, timeBased(5, 1000, 7));
      ObjectNode patch = JSON.createObjectNode();
      if (field.startsWith("strategy.")) {
        patch.putObject("strategy").putNull(field.substring("strategy.".length()));
      } else {
        patch.putNull(field);
      }

      assertError(budgets.patch(key, patch), 422, field + " cannot be null");
      assertThat(budgets.fetch(key)).isEqualTo(before);
    }

    @Test
    void nullAllocationInMessagePackPatchIsUnprocessable() {
      String key = newKey("patch-null-mp");
      budgets.define(key, whileInFlight(5));

      assertMsgpackError(budgets.sendMsgpack("PATCH", path(key), parse("{\"allocation\":null}")),
          422, "allocation cannot be null");
    }
  }

  /** Bindings on enqueue (§4), E14 and E16. */
  @Nested
  class Bindings {
    @Test
    void createWithCreatesOnceAndIsIgnoredAfterwards() {
      String key = newKey("cpu");
      String queue = uniqueName("create-with");
      long beforeMs = System.currentTimeMillis();

      JsonNode first = server.enqueue(boundJob(queue, bindingCreating(key, whileInFlight(100))));

      long afterMs = System.currentTimeMillis();
      assertThat(first.get("budgets")).isEqualTo(echoed(key, 1));
      JsonNode budget = budgets.fetch(key);
      assertThat(budget.get("allocation").intValue()).isEqualTo(100);
      assertThat(budget.get("strategy")).isEqualTo(parse("{\"type\":\"while_in_flight\"}"));
      assertThat(budget.get("created_at").longValue()).isBetween(beforeMs, afterMs);
      assertThat(budget.get("updated_at")).isEqualTo(budget.get("created_at"));

      Reply second = server.postJson("/jobs",
          boundJob(queue, bindingCreating(key, whileInFlight(5))));
      assertThat(second.status()).as("%s", second).isEqualTo(201);
      assertThat(budgets.fetch(key)).isEqualTo(budget);

      // An existing budget's create_with is ignored without semantic validation.
      Reply invalidIgnored = server.postJson("/jobs",
          boundJob(queue, bindingCreating(key, whileInFlight(0))));
      assertThat(invalidIgnored.status()).as("%s", invalidIgnored).isEqualTo(201);
      assertThat(budgets.fetch(key)).isEqualTo(budget);
    }

    @Test
    void bulkJobsCreatingTheSameKeyUseTheFirstPolicy() {
      String key = newKey("new");
      String queue = uniqueName("bulk-create-with");
      ObjectNode bulk = JSON.createObjectNode();
      ArrayNode jobs = bulk.putArray("jobs");
      jobs.add(boundJob(queue, bindingCreating(key, whileInFlight(7))));
      jobs.add(boundJob(queue, bindingCreating(key, timeBased(3, 1000))));

      Reply reply = server.postJson("/jobs/bulk", bulk);

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      for (JsonNode job : reply.json().get("jobs")) {
        assertThat(job.get("budgets")).isEqualTo(echoed(key, 1));
        assertThat(job.get("duplicate").booleanValue()).isFalse();
      }
      JsonNode budget = budgets.fetch(key);
      assertThat(budget.get("allocation").intValue()).isEqualTo(7);
      assertThat(budget.get("strategy")).isEqualTo(parse("{\"type\":\"while_in_flight\"}"));
    }

    @Test
    void sameJobCreatingAndThenReferencingIsResolvedInOrder() {
      String key = newKey("first-wins-one-job");
      String queue = uniqueName("one-job");
      String other = newKey("other");

      JsonNode job = server.enqueue(boundJob(queue,
          bindingCreating(other, timeBased(4, 1000)), bindingCreating(key, whileInFlight(9))));

      assertThat(job.get("budgets")).isEqualTo(echoed(other, 1, key, 1));
      assertThat(budgets.fetch(other).get("allocation").intValue()).isEqualTo(4);
      assertThat(budgets.fetch(key).get("allocation").intValue()).isEqualTo(9);
    }

    @Test
    void unknownBudgetWithoutCreateWithIsUnprocessableAndStoresNothing() {
      String key = newKey("unknown");
      String created = newKey("would-be-created");
      String queue = uniqueName("unknown-budget");

      Reply reply = server.postJson("/jobs",
          boundJob(queue, bindingCreating(created, whileInFlight(2)), binding(key)));

      assertError(reply, 422, "budget '" + key
          + "' does not exist and no create_with policy was supplied to create it with");
      assertThat(budgets.get(created).status()).isEqualTo(404);
      assertThat(budgets.get(key).status()).isEqualTo(404);
      server.assertNothingReady(queue);
    }

    @Test
    void invalidCreateWithForAMissingBudgetIsUnprocessable() {
      String key = newKey("invalid-create-with");
      String queue = uniqueName("invalid-create-with");

      assertError(server.postJson("/jobs", boundJob(queue, bindingCreating(key,
              parse("{\"allocation\":5,\"strategy\":{\"type\":\"time_based\"}}")))), 422,
          "time_based budget requires duration_ms");
      assertThat(budgets.get(key).status()).isEqualTo(404);
      server.assertNothingReady(queue);
    }

    @Test
    void keyNamedTwiceIsUnprocessable() {
      String key = newKey("twice");
      String queue = uniqueName("twice");
      budgets.define(key, whileInFlight(5));

      assertError(server.postJson("/jobs", boundJob(queue, binding(key), binding(key, 2))), 422,
          "budget '" + key + "' named more than once");
      server.assertNothingReady(queue);
    }

    @Test
    void zeroCostIsUnprocessable() {
      String key = newKey("zero-cost");
      String queue = uniqueName("zero-cost");
      budgets.define(key, whileInFlight(5));

      assertError(server.postJson("/jobs", boundJob(queue, binding(key, 0))), 422,
          "budget cost must be at least 1");
      server.assertNothingReady(queue);
    }

    @Test
    void zeroCostIsReportedBeforeAMissingBudget() {
      String queue = uniqueName("zero-cost-missing");

      assertError(server.postJson("/jobs", boundJob(queue, binding(newKey("nope"), 0))), 422,
          "budget cost must be at least 1");
    }

    @Test
    void bulkResolutionErrorsArePrefixedWithTheJobIndex() {
      String key = newKey("bulk-twice");
      String queue = uniqueName("bulk-twice");
      budgets.define(key, whileInFlight(5));
      ObjectNode bulk = JSON.createObjectNode();
      ArrayNode jobs = bulk.putArray("jobs");
      jobs.add(boundJob(queue, key));
      jobs.add(boundJob(queue, key));
      jobs.add(boundJob(queue, binding(key), binding(key, 2)));

      assertError(server.postJson("/jobs/bulk", bulk), 422,
          "jobs[2]: budget '" + key + "' named more than once");
      server.assertNothingReady(queue);
    }

    @Test
    void createWithIsResolvedEvenForADuplicateEnqueue() {
      String key = newKey("dup-create");
      String queue = uniqueName("dup-create");
      ObjectNode unique = ServerFixture.job(queue, "work").put("unique_key", key);
      JsonNode original = server.enqueue(unique);

      ObjectNode again = unique.deepCopy();
      again.putArray("budgets").add(bindingCreating(key, whileInFlight(3)));
      Reply reply = server.postJson("/jobs", again);

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      assertThat(reply.json().get("duplicate").booleanValue()).isTrue();
      assertThat(id(reply.json())).isEqualTo(id(original));
      assertThat(reply.json().has("budgets")).as("the existing job keeps its bindings").isFalse();
      assertThat(budgets.fetch(key).get("allocation").intValue()).isEqualTo(3);
    }

    /** E16. */
    @Test
    void burstBoundsTheCost() {
      String key = newKey("burst-bound");
      String queue = uniqueName("burst-bound");
      budgets.define(key, timeBased(10000, 3600000, 500));

      assertError(server.postJson("/jobs", boundJob(queue, binding(key, 501))), 422,
          "cost 501 exceeds budget '" + key + "', which holds at most 500");
      server.assertNothingReady(queue);
      JsonNode job = server.enqueue(boundJob(queue, binding(key, 500)));
      assertThat(job.get("budgets")).isEqualTo(echoed(key, 500));
    }

    @Test
    void costIsCheckedAgainstAPlannedBudget() {
      String key = newKey("planned");
      String queue = uniqueName("planned");

      assertError(server.postJson("/jobs", boundJob(queue,
              bindingCreating(key, whileInFlight(3)).put("cost", 4))), 422,
          "cost 4 exceeds budget '" + key + "', which holds at most 3");
      assertThat(budgets.get(key).status()).isEqualTo(404);
      server.assertNothingReady(queue);
    }

    @Test
    void bulkErrorsArePrefixedAndStoreNothing() {
      String created = newKey("bulk-created");
      String missing = newKey("bulk-missing");
      String queue = uniqueName("bulk-error");
      ObjectNode bulk = JSON.createObjectNode();
      ArrayNode jobs = bulk.putArray("jobs");
      jobs.add(boundJob(queue, bindingCreating(created, whileInFlight(2))));
      jobs.add(boundJob(queue, binding(missing)));

      assertError(server.postJson("/jobs/bulk", bulk), 422, "jobs[1]: budget '" + missing
          + "' does not exist and no create_with policy was supplied to create it with");
      assertThat(budgets.get(created).status()).isEqualTo(404);
      server.assertNothingReady(queue);
    }

    @Test
    void emptyBindingListMeansUnbound() {
      String queue = uniqueName("empty-bindings");

      JsonNode job = server.enqueue(boundJob(queue));

      assertThat(job.has("budgets")).isFalse();
      assertThat(server.getJob(id(job)).has("budgets")).isFalse();
    }

    @Test
    void bindingsAreShownByEveryJobRepresentation() {
      String first = newKey("shown-a");
      String second = newKey("shown-b");
      String queue = uniqueName("shown");
      budgets.define(first, whileInFlight(3));
      budgets.define(second, timeBased(5, 1000));
      ObjectNode request = boundJob(queue, binding(first, 3), binding(second));

      try (ServerFixture.Taken taken = server.takeOne(request)) {
        assertThat(taken.delivered().get("budgets")).isEqualTo(echoed(first, 3, second, 1));
        assertThat(server.getJob(taken.id()).get("budgets"))
            .isEqualTo(echoed(first, 3, second, 1));
        server.ack(taken.id());
      }
    }

    @Test
    void messagePackEnqueueEchoesBindings() {
      String key = newKey("mp-binding");
      String queue = uniqueName("mp-binding");

      Reply reply = server.postMsgpack("/jobs",
          ServerFixture.toMsgpack(boundJob(queue, bindingCreating(key, whileInFlight(4)))));

      assertThat(reply.status()).as("%s", reply).isEqualTo(201);
      assertThat(reply.msgpack().get("budgets")).isEqualTo(echoed(key, 1));
      assertThat(budgets.fetch(key).get("allocation").intValue()).isEqualTo(4);
    }

    @Test
    void unknownBudgetIsUnprocessableInMessagePack() {
      String key = newKey("mp-unknown");
      String queue = uniqueName("mp-unknown");

      assertMsgpackError(server.postMsgpack("/jobs",
          ServerFixture.toMsgpack(boundJob(queue, key))), 422, "budget '" + key
          + "' does not exist and no create_with policy was supplied to create it with");
      server.assertNothingReady(queue);
    }
  }

  /** E17: the cap of §8.8, on a server of its own. */
  @Nested
  class Cap {
    @TempDir Path tempDir;

    static String capMessage(String key) {
      return "cannot create budget '" + key + "': the server already holds its maximum of 2 "
          + "budgets (--max-budgets / SLUICE_MAX_BUDGETS). Raise the limit, or express the "
          + "throttle as one shared budget rather than one per caller.";
    }

    @Test
    void everyCreatingPathRespectsTheCapAndOthersDoNot() {
      try (ServerFixture capped =
          ServerFixture.start(tempDir, EngineConfig.defaults().withMaxBudgets(2))) {
        BudgetClient client = new BudgetClient(capped);
        assertThat(client.create("a", whileInFlight(1)).status()).isEqualTo(201);
        ObjectNode bulk = JSON.createObjectNode();
        bulk.putArray("jobs").add(boundJob("cap",
            bindingCreating("b", whileInFlight(2)), bindingCreating("c", whileInFlight(2))));
        assertError(capped.postJson("/jobs/bulk", bulk), 422, "jobs[0]: " + capMessage("c"));
        assertThat(client.get("b").status()).isEqualTo(404);
        assertThat(client.put("b", whileInFlight(1)).status()).isEqualTo(200);

        assertError(client.create("c", whileInFlight(1)), 422, capMessage("c"));
        assertError(client.put("c", whileInFlight(1)), 422, capMessage("c"));
        assertThat(client.put("a", whileInFlight(5)).status()).isEqualTo(200);
        assertThat(client.patch("b", "{\"allocation\":3}").status()).isEqualTo(200);
        assertError(capped.postJson("/jobs",
            boundJob("cap", bindingCreating("c", whileInFlight(1)))), 422, capMessage("c"));
        assertThat(capped.postJson("/jobs",
            boundJob("cap", bindingCreating("a", whileInFlight(1)))).status()).isEqualTo(201);
        String jobId = capped.enqueueId("cap-rebind");
        ObjectNode creating = JSON.createObjectNode();
        creating.set("create_with", whileInFlight(1));
        assertError(client.sendJson("POST", "/jobs/" + jobId + "/budgets/c", creating), 422,
            capMessage("c"));
        assertError(client.sendJson("PUT", "/jobs/budgets/c?queue=cap-rebind", creating), 422,
            capMessage("c"));
        assertThat(capped.getJob(jobId).has("budgets")).isFalse();

        assertThat(client.delete("b").status()).isEqualTo(204);
        assertThat(client.create("c", whileInFlight(1)).status()).isEqualTo(201);
        assertThat(capped.get("/budgets").json().get("budgets"))
            .extracting(budget -> budget.get("key").textValue())
            .containsExactly("a", "c");
      }
    }
  }
}

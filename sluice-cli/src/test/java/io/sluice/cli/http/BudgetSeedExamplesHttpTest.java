package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.assertError;
import static io.sluice.cli.http.BudgetClient.parse;
import static io.sluice.cli.http.BudgetClient.without;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.id;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.engine.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * BUDGETS.md §12 E19 (and E15): the request/response pairs quoted in {@code seed-budgets.txt},
 * replayed in the seed's chronological order against a fresh server. Bodies are compared as JSON
 * values, ignoring whitespace, key order and IDs. The replay runs on a manual clock moved to each
 * instant the seed shows, so its timestamps match the seed's to the millisecond, and they are
 * checked for the rules of §2.1 too (created_at kept by PUT/PATCH, updated_at moved).
 */
class BudgetSeedExamplesHttpTest {
  /** Members whose values differ from the seed's by nature; their presence is still checked. */
  static final String[] VOLATILE = {"id"};

  /** The seed's first instant, when it creates image-service. */
  static final long SEED_START_MS = 1788215727072L;

  @TempDir Path tempDir;
  ServerFixture server;
  BudgetClient budgets;

  void startServer(ServerFixture started) {
    server = started;
    budgets = new BudgetClient(started);
  }

  @AfterEach
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  static final String TIME_BASED_HOUR = """
      {
          "allocation": 10000,
          "strategy": {
              "type": "time_based",
              "duration_ms": 3600000
          }
      }""";

  /** Asserts status, JSON content type and semantic equality with the seed's body. */
  static JsonNode assertSeedReply(Reply reply, int status, String seedBody) {
    assertThat(reply.status()).as("%s", reply).isEqualTo(status);
    assertThat(reply.contentType()).isEqualTo("application/json");
    JsonNode actual = reply.json();
    assertThat(without(actual, VOLATILE)).as("body %s", actual)
        .isEqualTo(without(parse(seedBody), VOLATILE));
    return actual;
  }

  /** The timestamps of a budget are integers; returns {created_at, updated_at}. */
  static long[] stamps(JsonNode budget) {
    assertThat(budget.get("created_at")).as("created_at in %s", budget).isNotNull();
    assertThat(budget.get("updated_at")).as("updated_at in %s", budget).isNotNull();
    assertThat(budget.get("created_at").isIntegralNumber()).isTrue();
    assertThat(budget.get("updated_at").isIntegralNumber()).isTrue();
    return new long[] {budget.get("created_at").longValue(), budget.get("updated_at").longValue()};
  }

  /** Moves the server's manual clock on to the seed's instant {@code seedMs}. */
  void advanceTo(long seedMs) {
    server.advance(Duration.ofMillis(seedMs - server.nowMs()));
  }

  @Test
  void seedExamplesReplayWithTheSameStatusesAndBodies() {
    startServer(ServerFixture.start(tempDir, new ManualClock(SEED_START_MS)));

    // Create a time_based budget.
    Reply created = budgets.sendJson("POST", "/budgets/image-service", TIME_BASED_HOUR);
    JsonNode imageService = assertSeedReply(created, 201, """
        {
            "allocation": 10000,
            "created_at": 1788215727072,
            "key": "image-service",
            "strategy": {
                "duration_ms": 3600000,
                "type": "time_based"
            },
            "updated_at": 1788215727072
        }""");
    long[] createdStamps = stamps(imageService);
    assertThat(createdStamps[0]).isEqualTo(SEED_START_MS);
    assertThat(createdStamps[1]).isEqualTo(createdStamps[0]);

    // Duplicate create rejected; the stored policy is untouched.
    Reply duplicate = budgets.sendJson("POST", "/budgets/image-service", """
        {
            "allocation": 10000,
            "strategy": {
                "type": "time_based",
                "duration_ms": 7200000
            }
        }
        """);
    assertSeedReply(duplicate, 409, """
        {
            "error": "budget 'image-service' already exists"
        }""");
    assertThat(budgets.fetch("image-service")).isEqualTo(imageService);

    // Replace an existing budget: 200, created_at kept, updated_at moved.
    advanceTo(1788216000273L);
    Reply replaced = budgets.sendJson("PUT", "/budgets/image-service", TIME_BASED_HOUR);
    long[] replacedStamps = stamps(assertSeedReply(replaced, 200, """
        {
            "allocation": 10000,
            "created_at": 1788215727072,
            "key": "image-service",
            "strategy": {
                "duration_ms": 3600000,
                "type": "time_based"
            },
            "updated_at": 1788216000273
        }"""));
    assertThat(replacedStamps[0]).isEqualTo(createdStamps[0]);
    assertThat(replacedStamps[1]).isGreaterThan(createdStamps[1]);

    // Create a while_in_flight budget (PUT answers 200 when it creates, too).
    advanceTo(1788216137108L);
    Reply schemaBot = budgets.sendJson("PUT", "/budgets/schema-bot", """
        {
            "allocation": 10,
            "strategy": {
                "type": "while_in_flight"
            }
        }""");
    long[] schemaBotStamps = stamps(assertSeedReply(schemaBot, 200, """
        {
            "allocation": 10,
            "created_at": 1788216137108,
            "key": "schema-bot",
            "strategy": {
                "type": "while_in_flight"
            },
            "updated_at": 1788216137108
        }"""));
    assertThat(schemaBotStamps[1]).isEqualTo(schemaBotStamps[0]);

    // Patch an existing budget: the strategy is merged, burst may exceed the allocation.
    advanceTo(1788216248745L);
    Reply patched = budgets.sendJson("PATCH", "/budgets/image-service", """
        {
            "strategy": {
                "burst": 50000
            }
        }""");
    String patchedBudget = """
        {
            "allocation": 10000,
            "created_at": 1788215727072,
            "key": "image-service",
            "strategy": {
                "burst": 50000,
                "duration_ms": 3600000,
                "type": "time_based"
            },
            "updated_at": 1788216248745
        }""";
    JsonNode imageServicePatched = assertSeedReply(patched, 200, patchedBudget);
    long[] patchedStamps = stamps(imageServicePatched);
    assertThat(patchedStamps[0]).isEqualTo(createdStamps[0]);
    assertThat(patchedStamps[1]).isGreaterThan(replacedStamps[1]);

    // List budgets: sorted by key, each exactly as GET shows it.
    Reply list = server.get("/budgets");
    JsonNode listed = assertSeedReply(list, 200, """
        {
            "budgets": [
                {
                    "allocation": 10000,
                    "created_at": 1788215727072,
                    "key": "image-service",
                    "strategy": {
                        "burst": 50000,
                        "duration_ms": 3600000,
                        "type": "time_based"
                    },
                    "updated_at": 1788216248745
                },
                {
                    "allocation": 10,
                    "created_at": 1788216137108,
                    "key": "schema-bot",
                    "strategy": {
                        "type": "while_in_flight"
                    },
                    "updated_at": 1788216137108
                }
            ]
        }""");
    assertThat(listed.get("budgets").get(0)).isEqualTo(imageServicePatched);
    assertThat(listed.get("budgets").get(1)).isEqualTo(schemaBot.json());

    // Delete a budget.
    Reply deleted = server.send("DELETE", "/budgets/schema-bot", null);
    assertThat(deleted.status()).as("%s", deleted).isEqualTo(204);
    assertThat(deleted.body()).isEmpty();
    assertError(budgets.get("schema-bot"), 404, "budget 'schema-bot' not found");

    // Enqueue a job against multiple budgets (schema-bot declared again first, as the seed's
    // enqueue happens after its deletion).
    budgets.define("schema-bot", BudgetClient.whileInFlight(10));
    advanceTo(1788216589726L);
    Reply enqueued = budgets.sendJson("POST", "/jobs", """
        {
            "type": "example",
            "queue": "example",
            "payload": {},
            "budgets": [
                {
                    "key": "schema-bot",
                    "cost": 2
                },
                {"key": "image-service"}
            ]
        }""");
    String multiBudgetJob = """
        {
            "attempts": 0,
            "budgets": [
                {
                    "cost": 2,
                    "key": "schema-bot"
                },
                {
                    "cost": 1,
                    "key": "image-service"
                }
            ],
            "duplicate": false,
            "folded": false,
            "id": "03gsa8rjaoxgqgnrsnlt7niqb",
            "priority": 32768,
            "queue": "example",
            "ready_at": 1788216589726,
            "status": "ready",
            "type": "example"
        }""";
    JsonNode job = assertSeedReply(enqueued, 201, multiBudgetJob);
    assertThat(job.get("id").textValue()).matches("[0-9a-z]{25}");
    assertThat(job.get("ready_at").isIntegralNumber()).isTrue();
    JsonNode stored = server.getJob(id(job));
    assertThat(stored.get("budgets")).isEqualTo(job.get("budgets"));
    assertThat(stored.get("status").textValue()).isEqualTo("ready");

    // Enqueue a job using create_with.
    advanceTo(1788216781592L);
    Reply createdWith = budgets.sendJson("POST", "/jobs", """
        {
            "type": "example",
            "queue": "example",
            "payload": {},
            "budgets": [
                {
                    "key": "cpu-intensive",
                    "create_with": {
                        "allocation": 100,
                        "strategy": {
                            "type": "while_in_flight"
                        }
                    }
                }
            ]
        }""");
    assertSeedReply(createdWith, 201, """
        {
            "attempts": 0,
            "budgets": [
                {
                    "cost": 1,
                    "key": "cpu-intensive"
                }
            ],
            "duplicate": false,
            "folded": false,
            "id": "03gsa9e0vd59nf3zgysm1yxd0",
            "priority": 32768,
            "queue": "example",
            "ready_at": 1788216781592,
            "status": "ready",
            "type": "example"
        }""");
    JsonNode cpu = budgets.fetch("cpu-intensive");
    assertThat(without(cpu, "created_at", "updated_at")).isEqualTo(parse("""
        {"key": "cpu-intensive", "allocation": 100, "strategy": {"type": "while_in_flight"}}
        """));
    long[] cpuStamps = stamps(cpu);
    assertThat(cpuStamps[0]).as("created by the enqueue").isEqualTo(1788216781592L);
    assertThat(cpuStamps[1]).isEqualTo(cpuStamps[0]);

    // Delete a referenced budget rejected.
    Reply referenced = server.send("DELETE", "/budgets/image-service", null);
    assertSeedReply(referenced, 409, """
        {
            "error": "budget 'image-service' is referenced by 1 unfinished job. Delete them or wait for them to finish before deleting it."
        }""");
    assertThat(budgets.fetch("image-service")).isEqualTo(imageServicePatched);

    // Reduce a budget below a job's cost rejected; nothing changes.
    JsonNode schemaBotBefore = budgets.fetch("schema-bot");
    Reply shrink = budgets.sendJson("PATCH", "/budgets/schema-bot", """
        {
            "allocation": 1
        }""");
    assertSeedReply(shrink, 422, """
        {
            "error": "budget 'schema-bot' cannot allocate 1: 1 unfinished job draw up to 2 from it. Raise the allocation, delete them, or wait for them to drain."
        }""");
    assertThat(budgets.fetch("schema-bot")).isEqualTo(schemaBotBefore);

    // The list now holds the three budgets in key order.
    JsonNode keys = server.get("/budgets").json().get("budgets");
    assertThat(keys).extracting(budget -> budget.get("key").textValue())
        .containsExactly("cpu-intensive", "image-service", "schema-bot");
  }

  /** E15: the guards of §8.6/§8.9 with the remedy of §8.7.2. */
  @Test
  void guardsRefuseShrinkAndDeleteUntilTheJobIsUnbound() {
    startServer(ServerFixture.start(tempDir));
    budgets.define("schema-bot", BudgetClient.whileInFlight(10));
    JsonNode job = server.enqueue(BudgetClient.boundJob("guards",
        BudgetClient.binding("schema-bot", 2)));
    assertThat(job.get("status").textValue()).isEqualTo("ready");
    JsonNode before = budgets.fetch("schema-bot");

    assertError(budgets.patch("schema-bot", "{\"allocation\":1}"), 422,
        "budget 'schema-bot' cannot allocate 1: 1 unfinished job draw up to 2 from it. "
            + "Raise the allocation, delete them, or wait for them to drain.");
    assertError(budgets.put("schema-bot", BudgetClient.whileInFlight(1)), 422,
        "budget 'schema-bot' cannot allocate 1: 1 unfinished job draw up to 2 from it. "
            + "Raise the allocation, delete them, or wait for them to drain.");
    assertError(budgets.delete("schema-bot"), 409,
        "budget 'schema-bot' is referenced by 1 unfinished job. "
            + "Delete them or wait for them to finish before deleting it.");
    assertThat(budgets.fetch("schema-bot")).isEqualTo(before);

    Reply unbind = server.send("DELETE", "/jobs/budgets/schema-bot", null);
    assertThat(unbind.status()).as("%s", unbind).isEqualTo(200);
    assertThat(unbind.json()).isEqualTo(parse("{\"changed\":1,\"blocked\":[]}"));
    assertThat(server.getJob(id(job)).has("budgets")).isFalse();

    Reply deleted = budgets.delete("schema-bot");
    assertThat(deleted.status()).as("%s", deleted).isEqualTo(204);
    assertError(budgets.get("schema-bot"), 404, "budget 'schema-bot' not found");
  }

  /** §2.3/§8.9: with a burst set, the burst is the capacity that costs must fit in. */
  @Test
  void shrinkGuardUsesTheCapacityIncludingBurst() {
    startServer(ServerFixture.start(tempDir));
    budgets.define("image-service", BudgetClient.timeBased(2, 60_000, 10));
    server.enqueue(BudgetClient.boundJob("burst-guard", BudgetClient.binding("image-service", 5)));
    String tooSmall = "budget 'image-service' cannot allocate %d: 1 unfinished job draw up to 5 "
        + "from it. Raise the allocation, delete them, or wait for them to drain.";

    assertError(budgets.patch("image-service", "{\"strategy\":{\"burst\":null}}"), 422,
        tooSmall.formatted(2));
    assertError(budgets.put("image-service", BudgetClient.timeBased(100, 60_000, 4)), 422,
        tooSmall.formatted(4));
    assertError(budgets.patch("image-service",
        "{\"strategy\":{\"type\":\"while_in_flight\"}}"), 422, tooSmall.formatted(2));
    JsonNode raised =
        budgets.patchOk("image-service", JSON.createObjectNode().put("allocation", 5));
    assertThat(raised.get("strategy").get("burst").intValue()).isEqualTo(10);
    assertThat(budgets.patchOk("image-service", BudgetClient.parse(
        "{\"strategy\":{\"burst\":null}}")).get("strategy").has("burst")).isFalse();
  }

  /** §8.9 message with several jobs: plural noun, the largest cost. */
  @Test
  void shrinkGuardCountsEveryUnfinishedJobAndNamesTheLargestCost() {
    startServer(ServerFixture.start(tempDir));
    budgets.define("schema-bot", BudgetClient.whileInFlight(10));
    for (int cost : new int[] {2, 7, 3}) {
      server.enqueue(
          BudgetClient.boundJob("guards-many", BudgetClient.binding("schema-bot", cost)));
    }

    assertError(budgets.patch("schema-bot", "{\"allocation\":6}"), 422,
        "budget 'schema-bot' cannot allocate 6: 3 unfinished jobs draw up to 7 from it. "
            + "Raise the allocation, delete them, or wait for them to drain.");
    assertError(budgets.delete("schema-bot"), 409,
        "budget 'schema-bot' is referenced by 3 unfinished jobs. "
            + "Delete them or wait for them to finish before deleting it.");
    assertThat(budgets.patchOk("schema-bot", JSON.createObjectNode().put("allocation", 7))
        .get("allocation").intValue()).isEqualTo(7);
  }
}

package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.assertError;
import static io.sluice.cli.http.BudgetClient.assertErrorStartingWith;
import static io.sluice.cli.http.BudgetClient.assertMsgpackError;
import static io.sluice.cli.http.BudgetClient.bindingCreating;
import static io.sluice.cli.http.BudgetClient.echoed;
import static io.sluice.cli.http.BudgetClient.parse;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.BudgetClient.without;
import static io.sluice.cli.http.CronClient.entry;
import static io.sluice.cli.http.CronClient.entryPath;
import static io.sluice.cli.http.CronClient.group;
import static io.sluice.cli.http.CronClient.groupPath;
import static io.sluice.cli.http.CronClient.nextAfter;
import static io.sluice.cli.http.CronClient.ok;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cron endpoints of API.md §9.2 over HTTP: shapes, replacement and pause rules as the
 * timestamps show them, and every error. Schedules use yearly expressions, so nothing fires
 * while a test runs; firing has its own test class.
 */
class CronHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static final CronClient crons = new CronClient(server);
  static final BudgetClient budgets = new BudgetClient(server);
  static final String YEARLY = "0 0 1 1 *";

  static ObjectNode yearly(String name) {
    return entry(name, YEARLY, "cron-http").put("timezone", "UTC");
  }

  @Nested
  class Groups {
    @Test
    void putAnswersTheGroupWithEntriesInRequestOrderAndGetSortsThem() {
      String g = uniqueName("shape");
      String key = uniqueName("cron-budget");
      ObjectNode full = entry("b-full", "0 9 * * MON", "q");
      ((ObjectNode) full.get("job")).put("priority", 7).put("retry_limit", 3)
          .put("unique_key", "one-at-a-time");
      ((ObjectNode) full.get("job")).putObject("backoff").put("base_ms", 10)
          .put("exponent", 2.0).put("jitter_ms", 5);
      ((ObjectNode) full.get("job")).putObject("retention").put("dead_ms", 1000);
      ((ObjectNode) full.get("job")).putArray("budgets")
          .add(bindingCreating(key, whileInFlight(4)).put("cost", 2));
      full.put("timezone", "Asia/Tokyo").put("paused", true).put("unknown_field", 1);
      ObjectNode body = group(full, entry("a-min", "*/5 * * * *", "q"));
      body.put("timezone", "Europe/Rome");

      Instant before = Instant.now();
      JsonNode put = crons.putGroupOk(g, body);
      Instant after = Instant.now();

      assertThat(without(put, "paused_at", "next_enqueue_at")).isEqualTo(parse("""
          {"name": "%s", "paused": false, "timezone": "Europe/Rome", "entries": [
            {"name": "b-full", "expression": "0 9 * * MON", "timezone": "Asia/Tokyo",
             "paused": true,
             "job": {"type": "cron-b-full", "queue": "q", "payload": {"n": 1}, "priority": 7,
                     "retry_limit": 3, "backoff": {"base_ms": 10, "exponent": 2.0,
                     "jitter_ms": 5}, "retention": {"dead_ms": 1000},
                     "unique_key": "one-at-a-time", "unique_while": "queued",
                     "budgets": [{"key": "%s", "cost": 2}]}},
            {"name": "a-min", "expression": "*/5 * * * *", "paused": false,
             "job": {"type": "cron-a-min", "queue": "q", "payload": {"n": 1},
                     "priority": 32768}}]}
          """.formatted(g, key)));
      JsonNode full0 = put.get("entries").get(0);
      assertThat(full0.get("paused_at").longValue())
          .isBetween(before.toEpochMilli(), after.toEpochMilli());
      assertThat(full0.get("next_enqueue_at").longValue()).isBetween(
          nextAfter("0 9 * * MON", "Asia/Tokyo", before),
          nextAfter("0 9 * * MON", "Asia/Tokyo", after));
      assertThat(put.get("entries").get(1).get("next_enqueue_at").longValue()).isBetween(
          nextAfter("*/5 * * * *", "Europe/Rome", before),
          nextAfter("*/5 * * * *", "Europe/Rome", after));
      assertThat(put.has("paused_at")).isFalse();

      JsonNode got = crons.fetchGroup(g);
      assertThat(got.get("entries").get(0)).isEqualTo(put.get("entries").get(1));
      assertThat(got.get("entries").get(1)).isEqualTo(put.get("entries").get(0));
      assertThat(budgets.fetch(key).get("allocation").intValue()).isEqualTo(4);
    }

    @Test
    void putIsIdempotent() {
      String g = uniqueName("idempotent");
      ObjectNode body = group(yearly("e"), yearly("f").put("paused", true));

      JsonNode first = crons.putGroupOk(g, body);
      JsonNode second = crons.putGroupOk(g, body);

      assertThat(second).isEqualTo(first);
      assertThat(crons.fetchGroup(g)).isEqualTo(first);
    }

    @Test
    void putKeepsTheScheduleUnlessExpressionOrZoneChangeAndDeletesAbsentEntries() {
      String g = uniqueName("rules");
      crons.putGroupOk(g, group(yearly("keep"), yearly("rezone"), yearly("gone")));
      ObjectNode changedTemplate = yearly("keep");
      ((ObjectNode) changedTemplate.get("job")).put("priority", 1);

      Instant before = Instant.now();
      JsonNode put = crons.putGroupOk(g, group(changedTemplate,
          yearly("rezone").put("timezone", "Pacific/Kiritimati")));

      JsonNode keep = put.get("entries").get(0);
      assertThat(keep.get("next_enqueue_at").longValue())
          .isEqualTo(nextAfter(YEARLY, "UTC", before));
      assertThat(keep.get("job").get("priority").intValue()).isEqualTo(1);
      assertThat(put.get("entries").get(1).get("next_enqueue_at").longValue())
          .isEqualTo(nextAfter(YEARLY, "Pacific/Kiritimati", before));
      assertThat(crons.fetchGroup(g).get("entries").size()).isEqualTo(2);
      assertError(server.get(entryPath(g, "gone")), 404,
          "cron entry 'gone' not found in group '" + g + "'");
    }

    @Test
    void putReplacesTheGroupZoneAndPauseBookkeeping() {
      String g = uniqueName("put-pause");
      ObjectNode body = group(entry("e", YEARLY, "q"));
      body.put("timezone", "Pacific/Kiritimati").put("paused", true);
      JsonNode created = crons.putGroupOk(g, body);
      assertThat(created.get("paused_at")).as("created paused").isNotNull();

      JsonNode replaced = crons.putGroupOk(g, group(entry("e", YEARLY, "q")).put("paused", false));

      assertThat(replaced.has("timezone")).as("omitting timezone clears it").isFalse();
      assertThat(replaced.get("paused_at")).isEqualTo(created.get("paused_at"));
      assertThat(replaced.get("resumed_at").longValue())
          .isGreaterThanOrEqualTo(created.get("paused_at").longValue());
      assertThat(replaced.get("entries").get(0).get("next_enqueue_at"))
          .as("the inherited zone changed")
          .isNotEqualTo(created.get("entries").get(0).get("next_enqueue_at"));
    }

    @Test
    void listsSortedNamesAndDeletesThemAll() {
      crons.putGroupOk(uniqueName("list-b"), group());
      crons.putGroupOk(uniqueName("list-a"), group(yearly("e")));
      JsonNode names = ok(server.get("/crons")).get("crons");
      assertThat(names.size()).isGreaterThanOrEqualTo(2);
      for (int i = 1; i < names.size(); i++) {
        assertThat(names.get(i - 1).textValue()).isLessThan(names.get(i).textValue());
      }

      Reply deleted = server.delete("/crons");

      assertThat(deleted.status()).isEqualTo(200);
      assertThat(deleted.json()).isEqualTo(JSON.createObjectNode().put("deleted", names.size()));
      assertThat(ok(server.get("/crons"))).isEqualTo(parse("{\"crons\": []}"));
      assertThat(server.delete("/crons").json()).isEqualTo(parse("{\"deleted\": 0}"));
    }

    @Test
    void resetDeletesGroupsAndTheBudgetsTheirTemplatesHold() {
      String key = uniqueName("reset-budget");
      ObjectNode bound = yearly("e");
      ((ObjectNode) bound.get("job")).putArray("budgets")
          .add(bindingCreating(key, whileInFlight(1)));
      crons.putGroupOk(uniqueName("reset"), group(bound));

      assertThat(server.post("/reset").status()).isEqualTo(204);

      assertThat(ok(server.get("/crons"))).isEqualTo(parse("{\"crons\": []}"));
      assertThat(budgets.get(key).status()).isEqualTo(404);
    }

    @Test
    void deletesOneGroup() {
      String g = uniqueName("delete");
      crons.putGroupOk(g, group(yearly("e")));

      assertThat(server.delete(groupPath(g)).status()).isEqualTo(204);

      assertError(server.get(groupPath(g)), 404, "cron group '" + g + "' not found");
      assertError(server.delete(groupPath(g)), 404, "cron group '" + g + "' not found");
    }
  }

  @Nested
  class PatchGroup {
    @Test
    void mergesTheZoneAndRecomputesOnlyInheritingEntries() {
      String g = uniqueName("patch-zone");
      ObjectNode body = group(entry("inherits", YEARLY, "q"), yearly("own"));
      body.put("timezone", "UTC");
      JsonNode put = crons.putGroupOk(g, body);

      JsonNode absent = ok(crons.send("PATCH", groupPath(g), "{\"paused\": false}"));
      Instant before = Instant.now();
      JsonNode set = ok(crons.send("PATCH", groupPath(g), "{\"timezone\": \"Asia/Tokyo\"}"));
      JsonNode cleared = ok(crons.send("PATCH", groupPath(g), "{\"timezone\": null}"));

      assertThat(absent).as("absent and unchanged paused is a no-op").isEqualTo(put);
      assertThat(set.get("timezone").textValue()).isEqualTo("Asia/Tokyo");
      assertThat(set.get("entries").get(0).get("next_enqueue_at").longValue())
          .isEqualTo(nextAfter(YEARLY, "Asia/Tokyo", before));
      assertThat(set.get("entries").get(1)).isEqualTo(put.get("entries").get(1));
      assertThat(cleared.has("timezone")).isFalse();
    }

    @Test
    void followsThePauseBookkeepingAndAcceptsAnEmptyBody() {
      String g = uniqueName("patch-pause");
      crons.putGroupOk(g, group(yearly("e")));

      JsonNode paused = ok(crons.send("PATCH", groupPath(g), "{\"paused\": true}"));
      JsonNode again = ok(crons.send("PATCH", groupPath(g), "{\"paused\": true}"));
      JsonNode noop = ok(server.send("PATCH", groupPath(g), null));
      JsonNode resumed = ok(crons.send("PATCH", groupPath(g), "{\"paused\": false}"));

      assertThat(paused.get("paused").booleanValue()).isTrue();
      assertThat(again).isEqualTo(paused);
      assertThat(noop).isEqualTo(paused);
      assertThat(resumed.get("paused_at")).isEqualTo(paused.get("paused_at"));
      assertThat(resumed.get("resumed_at").longValue())
          .isGreaterThanOrEqualTo(paused.get("paused_at").longValue());
    }

    @Test
    void refusesAMissingGroupAndBadFields() {
      String g = uniqueName("patch-missing");
      assertError(crons.send("PATCH", groupPath(g), "{}"), 404,
          "cron group '" + g + "' not found");
      crons.putGroupOk(g, group());
      assertError(crons.send("PATCH", groupPath(g), "{\"timezone\": \"Mars/Olympus\"}"), 400,
          "invalid timezone: \"Mars/Olympus\"");
      assertError(crons.send("PATCH", groupPath(g), "{\"paused\": 1}"), 400,
          "invalid JSON: `paused` must be a boolean");
    }
  }

  @Nested
  class Entries {
    @Test
    void postCreatesTheEntryAndItsGroupButNeverReplaces() {
      String g = uniqueName("post");

      Reply created = crons.send("POST", groupPath(g) + "/entries", yearly("e"));

      assertThat(created.status()).as("%s", created).isEqualTo(201);
      assertThat(created.json().get("name").textValue()).isEqualTo("e");
      assertThat(crons.fetchGroup(g).get("paused").booleanValue()).isFalse();
      assertError(crons.send("POST", groupPath(g) + "/entries", yearly("e")), 409,
          "cron entry 'e' already exists in group '" + g + "'");
    }

    @Test
    void putCreatesOrReplacesWithThePathName() {
      String g = uniqueName("put-entry");
      ObjectNode body = yearly("ignored");
      body.remove("name");

      JsonNode created = ok(crons.send("PUT", entryPath(g, "e"), body));
      JsonNode replaced = ok(crons.send("PUT", entryPath(g, "e"),
          yearly("other-name").put("paused", true)));

      assertThat(created.get("name").textValue()).isEqualTo("e");
      assertThat(replaced.get("name").textValue()).isEqualTo("e");
      assertThat(replaced.get("next_enqueue_at")).isEqualTo(created.get("next_enqueue_at"));
      assertThat(replaced.get("paused").booleanValue()).isTrue();
      assertThat(crons.fetchEntry(g, "e")).isEqualTo(replaced);
    }

    @Test
    void patchSetsPausedWithItsBookkeeping() {
      String g = uniqueName("patch-entry");
      crons.putGroupOk(g, group(yearly("e")));

      JsonNode paused = ok(crons.send("PATCH", entryPath(g, "e"), "{\"paused\": true}"));
      JsonNode resumed = ok(crons.send("PATCH", entryPath(g, "e"), "{\"paused\": false}"));

      assertThat(paused.get("paused_at")).isNotNull();
      assertThat(resumed.get("paused").booleanValue()).isFalse();
      assertThat(resumed.get("paused_at")).isEqualTo(paused.get("paused_at"));
      assertThat(resumed.get("resumed_at")).isNotNull();
      assertError(crons.send("PATCH", entryPath(g, "e"), "{}"), 400,
          "invalid JSON: missing field `paused`");
    }

    @Test
    void deletesOneEntry() {
      String g = uniqueName("delete-entry");
      crons.putGroupOk(g, group(yearly("a"), yearly("b")));

      assertThat(server.delete(entryPath(g, "a")).status()).isEqualTo(204);

      assertThat(crons.fetchGroup(g).get("entries").size()).isEqualTo(1);
    }

    @Test
    void answersNotFoundForMissingEntriesAndGroups() {
      String g = uniqueName("missing");
      crons.putGroupOk(g, group());
      String message = "cron entry 'e' not found in group '" + g + "'";

      assertError(server.get(entryPath(g, "e")), 404, message);
      assertError(crons.send("PATCH", entryPath(g, "e"), "{\"paused\": true}"), 404, message);
      assertError(server.delete(entryPath(g, "e")), 404, message);
      assertError(server.get(entryPath("no-" + g, "e")), 404,
          "cron entry 'e' not found in group 'no-" + g + "'");
    }
  }

  @Nested
  class Validation {
    String g = uniqueName("invalid");

    void assertBadGroup(JsonNode body, String message) {
      assertError(crons.putGroup(g, body), 400, message);
    }

    ObjectNode withJob(String field, String value) {
      ObjectNode entry = yearly("e");
      ((ObjectNode) entry.get("job")).put(field, value);
      return entry;
    }

    @Test
    void refusesBadNames() {
      assertError(crons.putGroup("a*b", group()), 400,
          "cron group name must not contain '*' (reserved)");
      assertError(crons.send("POST", groupPath("a,b") + "/entries", yearly("e")), 400,
          "cron group name must not contain ','");
      assertError(crons.send("PUT", entryPath(g, "x{"), yearly("e")), 400,
          "cron entry name must not contain '{' (reserved)");
      assertBadGroup(group(yearly("")), "cron entry name must not be empty");
      assertBadGroup(group(yearly("ok"), yearly("ok")), "duplicate cron entry name: \"ok\"");
    }

    @Test
    void refusesBadExpressionsAndZones() {
      assertErrorStartingWith(crons.putGroup(g, group(entry("e", "* * *", "q"))), 400,
          "invalid cron expression: ");
      assertErrorStartingWith(
          crons.send("POST", groupPath(g) + "/entries", entry("e", "61 * * * *", "q")), 400,
          "invalid cron expression: ");
      assertBadGroup(group(yearly("e").put("timezone", "Mars/Olympus")),
          "invalid timezone: \"Mars/Olympus\"");
      assertBadGroup(group().put("timezone", "Nowhere"), "invalid timezone: \"Nowhere\"");
    }

    @Test
    void refusesBadTemplatesWith400() {
      ObjectNode readyAt = yearly("e");
      ((ObjectNode) readyAt.get("job")).put("ready_at", 1);
      assertBadGroup(group(readyAt), "ready_at is not supported for cron entries");
      assertBadGroup(group(withJob("queue", "")), "queue must not be empty");
      assertBadGroup(group(withJob("unique_while", "active")),
          "unique_while requires unique_key");
      ObjectNode noPayload = yearly("e");
      ((ObjectNode) noPayload.get("job")).remove("payload");
      assertBadGroup(group(noPayload), "invalid JSON: missing field `payload`");
      ObjectNode missingBudget = yearly("e");
      ((ObjectNode) missingBudget.get("job")).putArray("budgets").addObject().put("key", g);
      assertBadGroup(group(missingBudget), "budget '" + g
          + "' does not exist and no create_with policy was supplied to create it with");
      assertError(server.get(groupPath(g)), 404, "cron group '" + g + "' not found");
    }

    @Test
    void refusesMalformedBodiesAndUnknownQueryParameters() {
      assertBadGroup(JSON.createObjectNode(), "invalid JSON: missing field `entries`");
      assertBadGroup(parse("{\"entries\": {}}"), "invalid JSON: `entries` must be an array");
      ObjectNode noJob = yearly("e");
      noJob.remove("job");
      assertBadGroup(group(noJob), "invalid JSON: missing field `entries[].job`");
      assertErrorStartingWith(crons.send("PUT", groupPath(g), "{"), 400, "invalid JSON: ");
      assertError(server.get("/crons?x=1"), 400,
          "invalid query parameters: unknown parameter `x`");
      assertError(server.get(groupPath(g) + "?limit=1"), 400,
          "invalid query parameters: unknown parameter `limit`");
    }

    @Test
    void templateBudgetsBlockDeletingTheBudget() {
      String key = uniqueName("held");
      budgets.define(key, whileInFlight(3));
      ObjectNode bound = yearly("e");
      ((ObjectNode) bound.get("job")).putArray("budgets").addObject().put("key", key);
      crons.putGroupOk(g, group(bound));

      assertError(budgets.delete(key), 409, "budget '" + key + "' is referenced by 1 cron entry,"
          + " including '" + g + "/e'. Remove them before deleting it.");
      assertThat(crons.fetchEntry(g, "e").get("job").get("budgets")).isEqualTo(echoed(key, 1));

      assertThat(server.delete(groupPath(g)).status()).isEqualTo(204);
      assertThat(budgets.delete(key).status()).isEqualTo(204);
    }
  }

  @Nested
  class MessagePack {
    @Test
    void readsAndWritesGroupsAndEntries() {
      String g = uniqueName("msgpack");
      ObjectNode body = group(yearly("e"));

      Reply put = crons.sendMsgpack("PUT", groupPath(g), body);

      assertThat(put.status()).as("%s", put).isEqualTo(200);
      assertThat(put.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(put.msgpack()).isEqualTo(crons.fetchGroup(g));
      Reply entry = server.get(entryPath(g, "e"), "Accept", MSGPACK_TYPE);
      assertThat(entry.msgpack()).isEqualTo(crons.fetchEntry(g, "e"));
      Reply list = server.get("/crons", "Accept", MSGPACK_TYPE);
      assertThat(list.msgpack().get("crons").toString()).contains("\"" + g + "\"");
    }

    @Test
    void answersErrorsInMessagePack() {
      String g = uniqueName("msgpack-error");
      assertMsgpackError(crons.sendMsgpack("PUT", groupPath(g),
          group(yearly("e").put("expression", "nope"))), 400,
          crons.putGroup(g, group(yearly("e").put("expression", "nope"))).error());
      assertMsgpackError(server.get(groupPath(g), "Accept", MSGPACK_TYPE), 404,
          "cron group '" + g + "' not found");
    }
  }
}

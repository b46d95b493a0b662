package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.engine.cron.CronExpression;
import java.time.Instant;
import java.time.ZoneId;

/**
 * Request builders and calls for the cron endpoints (API.md §9), shared by the {@code Cron*}
 * HTTP tests. Every call goes through {@link ServerFixture}, so it is bounded.
 */
final class CronClient {
  private final ServerFixture server;
  private final BudgetClient requests;

  CronClient(ServerFixture server) {
    this.server = server;
    this.requests = new BudgetClient(server);
  }

  // ---- bodies --------------------------------------------------------------------------------

  /** An entry body with a minimal template for {@code queue}. */
  static ObjectNode entry(String name, String expression, String queue) {
    ObjectNode entry = JSON.createObjectNode().put("name", name).put("expression", expression);
    entry.set("job", ServerFixture.job(queue, "cron-" + name));
    return entry;
  }

  /** A {@code PUT /crons/{group}} body. */
  static ObjectNode group(JsonNode... entries) {
    ObjectNode group = JSON.createObjectNode();
    var array = group.putArray("entries");
    for (JsonNode entry : entries) {
      array.add(entry);
    }
    return group;
  }

  /** The first occurrence of {@code expression} in {@code zone} strictly after {@code after}. */
  static long nextAfter(String expression, String zone, Instant after) {
    return CronExpression.parse(expression).nextAfter(after, ZoneId.of(zone)).orElseThrow()
        .toEpochMilli();
  }

  // ---- paths and calls -----------------------------------------------------------------------

  static String groupPath(String group) {
    return "/crons/" + BudgetClient.encode(group);
  }

  static String entryPath(String group, String entry) {
    return groupPath(group) + "/entries/" + BudgetClient.encode(entry);
  }

  Reply send(String method, String path, JsonNode body) {
    return requests.sendJson(method, path, body);
  }

  Reply send(String method, String path, String body) {
    return requests.sendJson(method, path, body);
  }

  Reply sendMsgpack(String method, String path, JsonNode body) {
    return requests.sendMsgpack(method, path, body);
  }

  Reply putGroup(String group, JsonNode body) {
    return send("PUT", groupPath(group), body);
  }

  /** PUT asserting 200; returns the group. */
  JsonNode putGroupOk(String group, JsonNode body) {
    return ok(putGroup(group, body));
  }

  /** GET asserting 200; returns the group. */
  JsonNode fetchGroup(String group) {
    return ok(server.get(groupPath(group)));
  }

  /** GET asserting 200; returns the entry. */
  JsonNode fetchEntry(String group, String entry) {
    return ok(server.get(entryPath(group, entry)));
  }

  static JsonNode ok(Reply reply) {
    assertThat(reply.status()).as("%s", reply).isEqualTo(200);
    return reply.json();
  }
}

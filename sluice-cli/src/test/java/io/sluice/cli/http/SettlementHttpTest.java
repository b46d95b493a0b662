package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.binding;
import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.timeBased;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.toMsgpack;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * X5 over HTTP on a manual clock: settling the real cost on success, failure and bulk success,
 * in JSON and MessagePack; the debt it leaves in the live state and the wait; and every refused
 * body, which acknowledges nothing.
 */
class SettlementHttpTest {
  @RegisterExtension
  static final ServerFixture server = ServerFixture.perTestClassOnManualClock();

  static final BudgetClient budgets = new BudgetClient(server);

  /** A fresh queue with a rate budget of one token a second (capacity 10) and a worker. */
  private record Setup(String queue, String budget, WorkerStream stream) implements AutoCloseable {
    @Override
    public void close() {
      stream.close();
    }
  }

  private static Setup setup(String prefix) {
    String queue = ServerFixture.uniqueName(prefix);
    String budget = queue + "-llm";
    budgets.define(budget, timeBased(10, 10_000));
    return new Setup(queue, budget, server.take("queue=" + queue + "&prefetch=10"));
  }

  /** Enqueues a job bound to the budget (kept a minute once completed) and takes it. */
  private static String taken(Setup setup, long cost, JsonNode... more) {
    ObjectNode job = boundJob(setup.queue(), binding(setup.budget(), cost));
    for (JsonNode extra : more) {
      ((ArrayNode) job.get("budgets")).add(extra);
    }
    job.putObject("retention").put("completed_ms", 60_000);
    String id = id(server.enqueue(job));
    assertThat(id(setup.stream().nextJob())).isEqualTo(id);
    return id;
  }

  private static ObjectNode settling(String key, long cost) {
    ObjectNode body = JSON.createObjectNode();
    body.putArray("budgets").addObject().put("key", key).put("cost", cost);
    return body;
  }

  private static JsonNode state(String budget) {
    return server.get("/budgets/" + budget + "?state=true").json().get("state");
  }

  private static String status(String id) {
    return server.getJob(id).get("status").textValue();
  }

  @Test
  void aSuccessSettlingAboveWhatThePoolHoldsLeavesDebtThatDelaysTheNextJobExactly() {
    try (Setup setup = setup("debt")) {
      String done = taken(setup, 2);

      ServerFixture.Reply acked =
          server.postJson("/jobs/" + done + "/success", settling(setup.budget(), 19));
      assertThat(acked.status()).as("%s", acked).isEqualTo(204);
      JsonNode state = state(setup.budget());
      assertThat(state.get("tokens").longValue()).isZero();
      assertThat(state.get("debt").longValue()).isEqualTo(9);
      assertThat(state.get("next_token_at").longValue()).isEqualTo(server.nowMs() + 10_000);
      assertThat(server.getJob(done).at("/budgets/0/settled_cost").longValue()).isEqualTo(19);
      assertThat(server.getJob(done).at("/budgets/0/cost").longValue()).isEqualTo(2);

      String next = id(server.enqueue(boundJob(setup.queue(), binding(setup.budget(), 1))));
      JsonNode wait = server.get("/jobs/" + next + "/wait").json();
      assertThat(wait.at("/budgets/0/reason").textValue()).isEqualTo("debt");
      assertThat(wait.at("/budgets/0/available_at").longValue())
          .isEqualTo(server.nowMs() + 10_000);
      assertThat(wait.get("estimated_dispatch_at").longValue())
          .isEqualTo(server.nowMs() + 10_000);
      server.advance(Duration.ofMillis(9_999));
      assertThat(state(setup.budget()).get("debt").longValue()).isZero();
      assertThat(status(next)).isEqualTo("ready");
      server.advance(Duration.ofMillis(1));
      assertThat(id(setup.stream().nextJob())).isEqualTo(next);
    }
  }

  @Test
  void anEmptyBodyOrOneOfAnotherMediaTypeAcknowledgesAsBefore() {
    try (Setup setup = setup("empty")) {
      String first = taken(setup, 1);
      String second = taken(setup, 1);

      assertThat(server.post("/jobs/" + first + "/success").status()).isEqualTo(204);
      assertThat(server.send("POST", "/jobs/" + second + "/success",
          settling(setup.budget(), 9).toString().getBytes(StandardCharsets.UTF_8),
          "Content-Type", "text/plain").status()).isEqualTo(204);
      assertThat(server.getJob(first).at("/budgets/0").has("settled_cost")).isFalse();
      assertThat(server.getJob(second).at("/budgets/0").has("settled_cost")).isFalse();
      assertThat(state(setup.budget()).get("tokens").longValue()).isEqualTo(8);
    }
  }

  @Test
  void messagePackSettlesSuccessAndFailureAndAnswersInKind() {
    try (Setup setup = setup("msgpack")) {
      String done = taken(setup, 2);
      String failed = taken(setup, 2);

      ServerFixture.Reply acked = server.postMsgpack("/jobs/" + done + "/success",
          toMsgpack(settling(setup.budget(), 0)));
      assertThat(acked.status()).as("%s", acked).isEqualTo(204);
      ObjectNode report = settling(setup.budget(), 7);
      report.put("message", "the model answered at length");
      ServerFixture.Reply failure =
          server.postMsgpack("/jobs/" + failed + "/failure", toMsgpack(report));
      assertThat(failure.status()).as("%s", failure).isEqualTo(200);
      assertThat(failure.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(failure.msgpack().at("/budgets/0/settled_cost").longValue()).isEqualTo(7);
      assertThat(failure.msgpack().get("status").textValue()).isEqualTo("scheduled");

      // 10 − 2 − 2, +2 refunded, −5 more taken.
      assertThat(state(setup.budget()).get("tokens").longValue()).isEqualTo(3);
      JsonNode read = server.send("GET", "/jobs/" + done, null, "Accept", MSGPACK_TYPE).msgpack();
      assertThat(read.at("/budgets/0/settled_cost").longValue()).isZero();
    }
  }

  @Test
  void aFailureSettlesInJsonBesideItsOwnFields() {
    try (Setup setup = setup("fail")) {
      String failed = taken(setup, 3);
      ObjectNode report = settling(setup.budget(), 1);
      report.put("message", "short answer");

      JsonNode job = server.fail(failed, report);
      assertThat(job.get("budgets")).isEqualTo(JSON.createArrayNode().add(JSON.createObjectNode()
          .put("key", setup.budget()).put("cost", 3).put("settled_cost", 1)));
      assertThat(state(setup.budget()).get("tokens").longValue()).isEqualTo(9);
    }
  }

  @Test
  void bulkSuccessSettlesTheJobsItNamesInJsonAndMessagePack() {
    try (Setup setup = setup("bulk")) {
      String first = taken(setup, 3);
      String second = taken(setup, 3);
      String third = taken(setup, 1);

      ObjectNode json = JSON.createObjectNode();
      json.putArray("ids").add(first).add(second);
      json.putArray("settlements").addObject().put("id", second)
          .set("budgets", settling(setup.budget(), 5).get("budgets"));
      assertThat(server.postJson("/jobs/success", json).status()).isEqualTo(204);
      assertThat(server.getJob(first).at("/budgets/0").has("settled_cost")).isFalse();
      assertThat(server.getJob(second).at("/budgets/0/settled_cost").longValue()).isEqualTo(5);

      ObjectNode msgpack = JSON.createObjectNode();
      msgpack.putArray("ids").add(third).add("03hc5xyf0parppnub42r2fsye");
      msgpack.putArray("settlements").addObject().put("id", third)
          .set("budgets", settling(setup.budget(), 4).get("budgets"));
      ServerFixture.Reply partly = server.postMsgpack("/jobs/success", toMsgpack(msgpack));
      assertThat(partly.status()).isEqualTo(422);
      assertThat(partly.msgpack().get("not_found").get(0).textValue())
          .isEqualTo("03hc5xyf0parppnub42r2fsye");
      assertThat(server.getJob(third).at("/budgets/0/settled_cost").longValue()).isEqualTo(4);
      // 10 − 7 dispatched, −2 and −3 more settled: 2 owed.
      assertThat(state(setup.budget()).get("debt").longValue()).isEqualTo(2);
    }
  }

  @Test
  void aRefusedBulkSettlementAcknowledgesNothing() {
    try (Setup setup = setup("bulkbad")) {
      String first = taken(setup, 1);
      String second = taken(setup, 1);

      ObjectNode unbound = JSON.createObjectNode();
      unbound.putArray("ids").add(first).add(second);
      ArrayNode settlements = unbound.putArray("settlements");
      settlements.addObject().put("id", first)
          .set("budgets", settling(setup.budget(), 5).get("budgets"));
      settlements.addObject().put("id", second)
          .set("budgets", settling("elsewhere", 5).get("budgets"));
      assertRefused(server.postJson("/jobs/success", unbound), 422,
          "settlements[1]: job is not bound to budget elsewhere");
      ServerFixture.Reply inMsgpack = server.postMsgpack("/jobs/success", toMsgpack(unbound));
      assertThat(inMsgpack.status()).isEqualTo(422);
      assertThat(inMsgpack.msgpack().get("error").textValue())
          .isEqualTo("settlements[1]: job is not bound to budget elsewhere");

      ObjectNode notInIds = JSON.createObjectNode();
      notInIds.putArray("ids").add(first);
      notInIds.putArray("settlements").addObject().put("id", second)
          .set("budgets", settling(setup.budget(), 5).get("budgets"));
      assertRefused(server.postJson("/jobs/success", notInIds), 422,
          "settlements[0]: job " + second + " is not in ids");
      assertRefused(server.postJson("/jobs/success",
          "{\"ids\":[\"" + first + "\"],\"settlements\":{}}"), 400, "`settlements` must be");

      assertThat(List.of(status(first), status(second))).containsOnly("in_flight");
      assertThat(state(setup.budget()).get("tokens").longValue()).isEqualTo(8);
    }
  }

  @Test
  void badSettlementsAreClearClientErrorsThatAcknowledgeNothing() {
    try (Setup setup = setup("bad")) {
      String pool = setup.queue() + "-pool";
      budgets.define(pool, whileInFlight(2));
      String job = taken(setup, 2, binding(pool, 1));
      String path = "/jobs/" + job + "/success";
      String key = setup.budget();

      assertRefused(server.postJson(path, settling("elsewhere", 1)), 422,
          "job is not bound to budget elsewhere");
      assertRefused(server.postJson(path, "{\"budgets\":[{\"key\":\"" + key
          + "\",\"cost\":1,\"partition\":\"acct_42\"}]}"), 422,
          "budget " + key + " is not partitioned");
      assertRefused(server.postJson(path, "{\"budgets\":[{\"key\":\"" + key + "\",\"cost\":1},"
          + "{\"key\":\"" + key + "\",\"cost\":2}]}"), 422,
          "budget '" + key + "' named more than once");
      assertRefused(server.postJson(path, settling(key, 1_000_001)), 422,
          "settled cost must not exceed 1000000");
      assertRefused(server.postJson(path, settling(key, -1)), 400, "`budgets[].cost` out of range");
      assertRefused(server.postJson(path, "{\"budgets\":[{\"key\":\"" + key + "\",\"cost\":1.5}]}"),
          400, "`budgets[].cost` must be a non-negative integer");
      assertRefused(server.postJson(path, "{\"budgets\":[{\"key\":\"" + key + "\"}]}"), 400,
          "missing field `budgets[].cost`");
      assertRefused(server.postJson(path, "{\"budgets\":{}}"), 400, "`budgets` must be an array");
      assertRefused(server.postJson(path, "[]"), 400, "expected the request to be an object");
      assertRefused(server.postJson("/jobs/" + job + "/failure", "{\"message\":\"x\","
          + "\"budgets\":[{\"key\":\"elsewhere\",\"cost\":1}]}"), 422,
          "job is not bound to budget elsewhere");
      ServerFixture.Reply inMsgpack = server.postMsgpack(path, toMsgpack(settling("other", 1)));
      assertThat(inMsgpack.status()).isEqualTo(422);
      assertThat(inMsgpack.msgpack().get("error").textValue())
          .isEqualTo("job is not bound to budget other");

      assertThat(status(job)).isEqualTo("in_flight");
      assertThat(state(key).get("tokens").longValue()).isEqualTo(8);
      assertThat(server.postJson(path, settling(pool, 900)).status()).isEqualTo(204);
      assertThat(server.getJob(job).at("/budgets/1/settled_cost").longValue()).isEqualTo(900);
      assertThat(state(pool).get("tokens").longValue()).isEqualTo(2);
    }
  }

  private static void assertRefused(ServerFixture.Reply reply, int status, String message) {
    assertThat(reply.status()).as("%s", reply).isEqualTo(status);
    assertThat(reply.error()).contains(message);
  }
}

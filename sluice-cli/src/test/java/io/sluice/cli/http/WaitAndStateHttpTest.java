package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.timeBased;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * X1 ({@code GET /budgets[/{key}]?state=true}) and X2 ({@code GET /jobs/{id}/wait}) over HTTP, on
 * a manual clock so that every instant in an answer is exact, in JSON and in MessagePack.
 */
class WaitAndStateHttpTest {
  @RegisterExtension
  static final ServerFixture server = ServerFixture.perTestClassOnManualClock();

  static final BudgetClient budgets = new BudgetClient(server);
  static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode bound(String queue, String budget) {
    ObjectNode job = job(queue, "call");
    job.putArray("budgets").addObject().put("key", budget);
    return job;
  }

  private static JsonNode parse(String json) {
    try {
      return JSON.readTree(json);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aRateLimitedBudgetsStateAndWhyEachOfItsJobsWaits() {
    String queue = ServerFixture.uniqueName("rate");
    String budget = queue + "-b";
    budgets.define(budget, timeBased(2, 60_000));
    String first = id(server.enqueue(bound(queue, budget)));
    String second = id(server.enqueue(bound(queue, budget)));
    String third = id(server.enqueue(bound(queue, budget)));
    long spentAt;
    try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=2")) {
      JsonNode taken = stream.nextJob();
      assertThat(id(taken)).isEqualTo(first);
      assertThat(id(stream.nextJob())).isEqualTo(second);
      spentAt = taken.get("dequeued_at").longValue();
    }
    // The stream took the first two (the bucket held two tokens) and gave them back on closing.
    server.awaitJob(second, job -> job.get("status").textValue().equals("ready"), "requeued");
    long now = server.nowMs();

    JsonNode state = server.get("/budgets/" + budget + "?state=true").json();
    assertThat(state.get("key").textValue()).isEqualTo(budget);
    assertThat(state.get("allocation").intValue()).isEqualTo(2);
    assertThat(state.get("state")).isEqualTo(parse("{\"as_of\":" + now + ",\"tokens\":0,"
        + "\"capacity\":2,\"debt\":0,\"in_flight\":{\"jobs\":0,\"cost\":0},"
        + "\"waiting\":{\"jobs\":3,\"cost\":3},\"next_token_at\":" + (spentAt + 30_000) + ","
        + "\"full_at\":" + (spentAt + 60_000) + ",\"paused_until\":null,\"dispatched\":2}"));

    JsonNode wait = server.get("/jobs/" + third + "/wait").json();
    assertThat(wait).isEqualTo(parse("{\"id\":\"" + third + "\",\"status\":\"ready\","
        + "\"as_of\":" + now + ",\"waiting_for\":\"budgets\",\"budgets\":[{\"key\":\"" + budget
        + "\",\"cost\":1,\"blocking\":true,\"reason\":\"queue\",\"tokens\":0,"
        + "\"ahead\":{\"jobs\":2,\"cost\":2},\"available_at\":" + (spentAt + 90_000) + "}],"
        + "\"estimated_dispatch_at\":" + (spentAt + 90_000) + "}"));
    JsonNode head = server.get("/jobs/" + first + "/wait").json();
    assertThat(head.at("/budgets/0/reason").textValue()).isEqualTo("tokens");
    assertThat(head.at("/budgets/0/available_at").longValue()).isEqualTo(spentAt + 30_000);

    server.advance(Duration.ofMillis(spentAt + 30_000 - 1 - now));
    assertThat(server.get("/budgets/" + budget + "?state=true").json().at("/state/tokens")
        .intValue()).isZero();
    server.advance(Duration.ofMillis(1));
    JsonNode refilled = server.get("/budgets/" + budget + "?state=true").json().get("state");
    assertThat(refilled.get("tokens").intValue()).isEqualTo(1);
    assertThat(refilled.get("next_token_at").longValue()).isEqualTo(spentAt + 60_000);
    assertThat(server.get("/jobs/" + second + "/wait").json().at("/budgets/0/ahead/jobs")
        .intValue()).isEqualTo(1);
  }

  @Test
  void theListWithStateCoversEveryBudgetInKeyOrderAndMessagePackCarriesTheSame() {
    String prefix = ServerFixture.uniqueName("list");
    budgets.define(prefix + "-b", whileInFlight(3));
    budgets.define(prefix + "-a", whileInFlight(1));

    JsonNode list = server.get("/budgets?state=true").json().get("budgets");
    JsonNode packed = server.get("/budgets?state=true", "Accept", ServerFixture.MSGPACK_TYPE)
        .msgpack().get("budgets");

    assertThat(list.findValuesAsText("key")).containsSubsequence(prefix + "-a", prefix + "-b");
    for (JsonNode budget : list) {
      assertThat(budget.has("state")).as("state of %s", budget.get("key")).isTrue();
    }
    assertThat(packed).isEqualTo(list);
    assertThat(server.get("/budgets").json().get("budgets").get(0).has("state")).isFalse();
  }

  @Test
  void aScheduledJobWaitsForItsReadyAtAndARunningOneForNothing() {
    String queue = ServerFixture.uniqueName("sched");
    ObjectNode later = job(queue, "later");
    later.put("ready_at", server.nowMs() + 10_000);
    String scheduled = id(server.enqueue(later));

    JsonNode wait = server.get("/jobs/" + scheduled + "/wait").json();
    assertThat(wait.get("waiting_for").textValue()).isEqualTo("ready_at");
    assertThat(wait.get("ready_at").longValue()).isEqualTo(server.nowMs() + 10_000);
    assertThat(wait.get("budgets")).isEmpty();

    try (ServerFixture.Taken taken = server.takeOne(queue + "-now")) {
      JsonNode running = server.get("/jobs/" + taken.id() + "/wait",
          "Accept", ServerFixture.MSGPACK_TYPE).msgpack();
      assertThat(running.get("status").textValue()).isEqualTo("in_flight");
      assertThat(running.get("waiting_for").isNull()).isTrue();
    }
  }

  @Test
  void badInputIsAClearClientError() {
    assertThat(server.get("/jobs/03hc5xyf0parppnub42r2fsye/wait").status()).isEqualTo(404);
    assertThat(server.get("/jobs/not-an-id/wait").status()).isEqualTo(404);
    assertThat(server.get("/budgets/missing?state=true").status()).isEqualTo(404);
    ServerFixture.Reply bad = server.get("/budgets?state=yes");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.error()).contains("state must be");
    assertThat(server.get("/jobs/03hc5xyf0parppnub42r2fsye/wait?x=1").status()).isEqualTo(400);
  }
}

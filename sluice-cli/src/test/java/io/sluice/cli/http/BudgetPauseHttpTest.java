package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** X6 over HTTP on a manual clock: pause, resume, their answers, and bad pause bodies. */
class BudgetPauseHttpTest {
  @RegisterExtension
  static final ServerFixture server = ServerFixture.perTestClassOnManualClock();

  static final BudgetClient budgets = new BudgetClient(server);

  private static ObjectNode bound(String queue, String budget) {
    ObjectNode job = job(queue, "call");
    job.putArray("budgets").addObject().put("key", budget);
    return job;
  }

  @Test
  void aPausedBudgetHoldsItsJobUntilThePauseEndsAndResumeReleasesItAtOnce() {
    String queue = ServerFixture.uniqueName("pause");
    String budget = queue + "-b";
    budgets.define(budget, whileInFlight(1));
    long until = server.nowMs() + 60_000;

    ServerFixture.Reply paused = server.postJson("/budgets/" + budget + "/pause",
        "{\"for_ms\":60000}");
    assertThat(paused.status()).isEqualTo(200);
    assertThat(paused.json().at("/state/paused_until").longValue()).isEqualTo(until);
    ServerFixture.Reply shorter = server.postJson("/budgets/" + budget + "/pause",
        "{\"until\":" + (until - 30_000) + "}");
    assertThat(shorter.json().at("/state/paused_until").longValue())
        .as("a pause never shortens another").isEqualTo(until);

    String held = id(server.enqueue(bound(queue, budget)));
    JsonNode wait = server.get("/jobs/" + held + "/wait").json();
    assertThat(wait.at("/budgets/0/reason").textValue()).isEqualTo("paused");
    assertThat(wait.at("/budgets/0/available_at").isNull())
        .as("a while_in_flight budget has no available_at (X2)").isTrue();
    server.assertNothingReady(queue);

    ServerFixture.Reply resumed = server.post("/budgets/" + budget + "/resume");
    assertThat(resumed.status()).isEqualTo(200);
    assertThat(resumed.json().at("/state/paused_until").isNull()).isTrue();
    try (WorkerStream stream = server.take("queue=" + queue)) {
      assertThat(id(stream.nextJob())).isEqualTo(held);
    }
  }

  @Test
  void aPauseEndsOnItsOwnAtTheExactMillisecond() {
    String queue = ServerFixture.uniqueName("ends");
    String budget = queue + "-b";
    budgets.define(budget, whileInFlight(1));
    server.postJson("/budgets/" + budget + "/pause", "{\"for_ms\":1000}");
    String held = id(server.enqueue(bound(queue, budget)));

    try (WorkerStream stream = server.take("queue=" + queue)) {
      server.advance(Duration.ofMillis(999));
      assertThat(server.getJob(held).get("status").textValue()).isEqualTo("ready");
      server.advance(Duration.ofMillis(1));
      assertThat(id(stream.nextJob())).isEqualTo(held);
    }
  }

  @Test
  void badPauseBodiesAreClearClientErrors() {
    String budget = ServerFixture.uniqueName("bad");
    budgets.define(budget, whileInFlight(1));

    ServerFixture.Reply both = server.postJson("/budgets/" + budget + "/pause",
        "{\"for_ms\":1,\"until\":2}");
    assertThat(both.status()).isEqualTo(400);
    assertThat(both.error()).contains("exactly one of for_ms and until");
    ServerFixture.Reply neither = server.postJson("/budgets/" + budget + "/pause", "{}");
    assertThat(neither.status()).isEqualTo(400);
    ServerFixture.Reply negative = server.postJson("/budgets/" + budget + "/pause",
        "{\"for_ms\":-5}");
    assertThat(negative.status()).isEqualTo(400);
    assertThat(server.postJson("/budgets/missing-budget/pause", "{\"for_ms\":5}").status())
        .isEqualTo(404);
    assertThat(server.post("/budgets/missing-budget/resume").status()).isEqualTo(404);
  }
}

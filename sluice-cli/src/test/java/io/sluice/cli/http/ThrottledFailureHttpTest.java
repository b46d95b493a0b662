package io.sluice.cli.http;

import static io.sluice.cli.http.BudgetClient.assertError;
import static io.sluice.cli.http.BudgetClient.boundJob;
import static io.sluice.cli.http.BudgetClient.whileInFlight;
import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.toMsgpack;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.cli.http.ServerFixture.Taken;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * X6 over HTTP on a manual clock: {@code POST /jobs/{id}/failure} with {@code throttle}, the
 * pause it leaves, the job back in its place with its attempts unchanged, the throttled error
 * records in the listing and its pages, and every refusal.
 */
class ThrottledFailureHttpTest {
  @RegisterExtension
  static final ServerFixture server = ServerFixture.perTestClassOnManualClock();

  static final BudgetClient budgets = new BudgetClient(server);

  private static ObjectNode throttled(String message, String budget, long retryAfterMs) {
    ObjectNode report = JSON.createObjectNode().put("message", message);
    report.putObject("throttle").put("budget", budget).put("retry_after_ms", retryAfterMs);
    return report;
  }

  /** A queue and a one-slot budget of their own, and a job bound to it taken by a worker. */
  private static Taken takeBound(String prefix) {
    String queue = ServerFixture.uniqueName(prefix);
    budgets.define(queue + "-b", whileInFlight(1));
    return server.takeOne(boundJob(queue, queue + "-b"));
  }

  private static JsonNode pausedUntil(String budget) {
    return server.get(BudgetClient.path(budget) + "?state=true").json().at("/state/paused_until");
  }

  private static String budgetOf(Taken taken) {
    return taken.delivered().at("/budgets/0/key").textValue();
  }

  @Test
  void theJobIsReadyAtOnceAheadOfLaterJobsAndItsBudgetPausedToTheExactMillisecond() {
    try (Taken taken = takeBound("throttle")) {
      String budget = budgetOf(taken);
      String queue = taken.delivered().get("queue").textValue();
      String later = id(server.enqueue(boundJob(queue, budget)));
      long pauseEnd = server.nowMs() + 30_000;

      JsonNode answered = server.fail(taken.id(), throttled("429", budget, 30_000));

      assertThat(answered.get("status").textValue()).isEqualTo("ready");
      assertThat(answered.get("attempts").intValue()).isZero();
      assertThat(answered.get("ready_at")).isEqualTo(taken.delivered().get("ready_at"));
      assertThat(answered.get("failed_at").longValue()).isEqualTo(server.nowMs());
      assertThat(pausedUntil(budget).longValue()).isEqualTo(pauseEnd);
      JsonNode wait = server.get("/jobs/" + taken.id() + "/wait").json();
      assertThat(wait.at("/budgets/0/reason").textValue()).isEqualTo("paused");
      server.advance(Duration.ofMillis(29_999));
      assertThat(server.getJob(taken.id()).get("status").textValue()).isEqualTo("ready");
      server.advance(Duration.ofMillis(1));
      JsonNode redelivered = taken.stream().nextJob();
      assertThat(id(redelivered)).as("ahead of the job enqueued after it").isEqualTo(taken.id());
      assertThat(redelivered.get("attempts").intValue()).isZero();
      assertThat(server.getJob(later).get("status").textValue()).isEqualTo("ready");
    }
  }

  @Test
  void throttledRecordsAreListedBesideTheCountedFailureOfTheSameAttemptAndPagedByPosition() {
    try (Taken taken = takeBound("records")) {
      String budget = budgetOf(taken);
      server.fail(taken.id(), throttled("first 429", budget, 0));
      taken.stream().nextJob();
      server.fail(taken.id(), throttled("second 429", budget, 0));
      taken.stream().nextJob();
      JsonNode counted = server.fail(taken.id(),
          JSON.createObjectNode().put("message", "500").put("retry_at", 0));
      assertThat(counted.get("attempts").intValue()).isEqualTo(1);
      String base = "/jobs/" + taken.id() + "/errors";

      JsonNode all = server.get(base).json().get("errors");
      assertThat(all).extracting(e -> e.get("message").textValue())
          .containsExactly("first 429", "second 429", "500");
      assertThat(all).extracting(e -> e.get("attempt").intValue()).containsExactly(1, 1, 1);
      assertThat(all.get(0).get("throttled").booleanValue()).isTrue();
      assertThat(all.get(1).get("throttled").booleanValue()).isTrue();
      assertThat(all.get(2).has("throttled")).as("a counted failure reads as §6.3").isFalse();

      JsonNode first = server.get(base + "?limit=1").json();
      assertThat(first.at("/pages/next").textValue())
          .isEqualTo(base + "?from=1&order=asc&limit=1");
      JsonNode second = server.get(first.at("/pages/next").textValue()).json();
      assertThat(second.at("/errors/0/message").textValue()).isEqualTo("second 429");
      assertThat(second.at("/pages/next").textValue())
          .isEqualTo(base + "?from=2&order=asc&limit=1");
      assertThat(second.at("/pages/prev").textValue())
          .isEqualTo(base + "?from=2&order=desc&limit=1");
      JsonNode third = server.get(second.at("/pages/next").textValue()).json();
      assertThat(third.at("/errors/0/message").textValue()).isEqualTo("500");
      assertThat(third.at("/pages/next").isNull()).isTrue();
      JsonNode newestFirst = server.get(base + "?order=desc&from=3").json().get("errors");
      assertThat(newestFirst).extracting(e -> e.get("message").textValue())
          .containsExactly("second 429", "first 429");

      assertThat(server.get(base + "/2").json().get("message").textValue())
          .isEqualTo("second 429");
      Reply packed = server.get(base + "/1", "Accept", MSGPACK_TYPE);
      assertThat(packed.contentType()).isEqualTo(MSGPACK_TYPE);
      assertThat(packed.msgpack().get("throttled").isBoolean()).isTrue();
      assertThat(packed.msgpack().get("throttled").booleanValue()).isTrue();
      assertThat(server.get(base + "/4").status()).isEqualTo(404);
    }
  }

  @Test
  void aMessagePackReportCanCarryAThrottle() {
    try (Taken taken = takeBound("packed")) {
      Reply reply = server.postMsgpack("/jobs/" + taken.id() + "/failure",
          toMsgpack(throttled("packed 429", budgetOf(taken), 5_000)));

      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.msgpack().get("status").textValue()).isEqualTo("ready");
      Reply listed = server.get("/jobs/" + taken.id() + "/errors", "Accept", MSGPACK_TYPE);
      assertThat(listed.msgpack().at("/errors/0/throttled").booleanValue()).isTrue();
    }
  }

  @Test
  void everyRefusalNamesTheProblemAndChangesNothing() {
    try (Taken taken = takeBound("refused")) {
      String budget = budgetOf(taken);
      String other = ServerFixture.uniqueName("other");
      budgets.define(other, whileInFlight(1));
      String failure = "/jobs/" + taken.id() + "/failure";

      assertError(server.postJson(failure, throttled("m", other, 1_000)), 422,
          "job is not bound to budget " + other);
      ObjectNode partitioned = throttled("m", budget, 1_000);
      ((ObjectNode) partitioned.get("throttle")).put("partition", "acct_42");
      assertError(server.postJson(failure, partitioned), 422,
          "budget " + budget + " is not partitioned");
      assertError(server.postJson(failure, throttled("m", budget, 1_000).put("kill", true)), 422,
          "throttle cannot be combined with kill: a throttled job is always retried");
      assertError(server.postJson(failure, throttled("m", budget, 1_000).put("retry_at", 5)),
          422, "throttle cannot be combined with retry_at: the budget's pause decides the retry");
      assertError(server.postJson(failure, throttled("m", budget, -1)), 400,
          "invalid JSON: `throttle.retry_after_ms` out of range (0 to 18446744073709551615)");
      assertError(server.postJson(failure,
          "{\"message\":\"m\",\"throttle\":{\"budget\":\"" + budget + "\"}}"), 400,
          "invalid JSON: missing field `throttle.retry_after_ms`");
      assertError(server.postJson(failure,
          "{\"message\":\"m\",\"throttle\":{\"retry_after_ms\":5}}"), 400,
          "invalid JSON: missing field `throttle.budget`");
      assertError(server.postJson(failure, "{\"message\":\"m\",\"throttle\":\"" + budget + "\"}"),
          400, "invalid JSON: expected throttle to be an object");

      assertThat(server.getJob(taken.id()).get("status").textValue()).isEqualTo("in_flight");
      assertThat(server.get("/jobs/" + taken.id() + "/errors").json().get("errors")).isEmpty();
      assertThat(pausedUntil(budget).isNull())
          .isTrue();
      assertThat(pausedUntil(other).isNull())
          .isTrue();
    }
  }

  @Test
  void aJobNotInFlightCannotReportThrottling() {
    String queue = ServerFixture.uniqueName("idle");
    budgets.define(queue + "-b", whileInFlight(1));
    String waiting = id(server.enqueue(boundJob(queue, queue + "-b")));

    assertError(server.postJson("/jobs/" + waiting + "/failure",
        throttled("m", queue + "-b", 1_000)), 404, "job not found in in-flight set");
  }
}

package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.toMsgpack;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.cli.http.ServerFixture.Taken;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code POST /jobs/{id}/failure} and the error records it leaves (API.md §4.3, §4.4, §6.3, §8.7,
 * §8.12, §8.13).
 */
class FailureHttpTest {
  static final long DEAD_RETENTION_MS = 7L * 24 * 3600 * 1000;

  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static ObjectNode report(String message) {
    return JSON.createObjectNode().put("message", message);
  }

  /** A minimal job in a queue of its own, taken by a worker. */
  static Taken takeOne() {
    return server.takeOne(uniqueName("fail"));
  }

  @Nested
  class Retry {
    @Test
    void firstFailureSchedulesARetryWithDefaultBackoff() {
      try (Taken taken = takeOne()) {
        long beforeMs = System.currentTimeMillis();

        Reply reply = server.postJson("/jobs/" + taken.id() + "/failure", report("boom"));

        long afterMs = System.currentTimeMillis();
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.contentType()).isEqualTo("application/json");
        JsonNode failed = reply.json();
        assertThat(id(failed)).isEqualTo(taken.id());
        assertThat(failed.get("status").textValue()).isEqualTo("scheduled");
        assertThat(failed.get("attempts").intValue()).isEqualTo(1);
        // 15 s base + 1^4 s + up to 30 s of jitter for the first attempt.
        assertThat(failed.get("ready_at").longValue())
            .isBetween(beforeMs + 16_000, afterMs + 46_000);
        assertThat(failed.get("failed_at").longValue()).isBetween(beforeMs, afterMs);
        assertThat(failed.get("dequeued_at").longValue()).isEqualTo(taken.dequeuedAtMs());
        assertThat(failed.has("payload")).isFalse();
        assertThat(failed.has("duplicate")).isFalse();
        assertThat(failed.has("folded")).isFalse();
        assertThat(failed.has("purge_at")).isFalse();
        EnqueueHttpTest.assertNoNulls(failed);

        JsonNode stored = server.getJob(taken.id());
        assertThat(stored.get("status").textValue()).isEqualTo("scheduled");
        assertThat(stored.get("ready_at")).isEqualTo(failed.get("ready_at"));
        assertThat(stored.get("failed_at")).isEqualTo(failed.get("failed_at"));
      }
    }

    @Test
    void pastRetryAtMakesTheJobRunnableAgainAtOnce() {
      try (Taken taken = takeOne()) {
        long retryAtMs = System.currentTimeMillis() - 1_000;
        ObjectNode report = report("retry now").put("retry_at", retryAtMs);

        JsonNode failed = server.fail(taken.id(), report);

        assertThat(failed.get("attempts").intValue()).isEqualTo(1);
        assertThat(failed.get("ready_at").longValue()).isEqualTo(retryAtMs);
        assertThat(failed.get("status").textValue()).isIn("scheduled", "ready");
        JsonNode again = taken.stream().nextJob();
        assertThat(id(again)).isEqualTo(taken.id());
        assertThat(again.get("status").textValue()).isEqualTo("in_flight");
        assertThat(again.get("attempts").intValue()).isEqualTo(1);
        assertThat(again.get("ready_at").longValue()).isEqualTo(retryAtMs);
        assertThat(again.get("failed_at")).isEqualTo(failed.get("failed_at"));
        server.ack(taken.id());
      }
    }

    @Test
    void futureRetryAtIsUsedAsIs() {
      try (Taken taken = takeOne()) {
        long retryAtMs = System.currentTimeMillis() + 3_600_000;

        JsonNode failed = server.fail(taken.id(), report("later").put("retry_at", retryAtMs));

        assertThat(failed.get("status").textValue()).isEqualTo("scheduled");
        assertThat(failed.get("ready_at").longValue()).isEqualTo(retryAtMs);
      }
    }

    @Test
    void retryAtBypassesAnExhaustedRetryLimit() {
      ObjectNode request = job(uniqueName("fail-bypass"), "work").put("retry_limit", 0);
      try (Taken taken = server.takeOne(request)) {
        long retryAtMs = System.currentTimeMillis() + 3_600_000;

        JsonNode failed = server.fail(taken.id(), report("again").put("retry_at", retryAtMs));

        assertThat(failed.get("status").textValue()).isEqualTo("scheduled");
        assertThat(failed.get("ready_at").longValue()).isEqualTo(retryAtMs);
        assertThat(failed.get("retry_limit").intValue()).isZero();
      }
    }

    @Test
    void failureThatExceedsTheRetryLimitKills() {
      ObjectNode request = job(uniqueName("fail-limit"), "work").put("retry_limit", 1);
      try (Taken taken = server.takeOne(request)) {
        server.fail(taken.id(), report("first").put("retry_at", 0));
        assertThat(id(taken.stream().nextJob())).isEqualTo(taken.id());

        JsonNode failed = server.fail(taken.id(), report("second"));

        assertThat(failed.get("status").textValue()).isEqualTo("dead");
        assertThat(failed.get("attempts").intValue()).isEqualTo(2);
      }
    }
  }

  /** A retry's backoff running out, as the server's clock moves through it. */
  @Nested
  class OnAManualClock {
    @RegisterExtension
    static final ServerFixture manualServer = ServerFixture.perTestClassOnManualClock();

    @Test
    void jobBackoffOverrideDrivesTheDelayAndTheJobComesBack() {
      ObjectNode request = job(uniqueName("fail-backoff"), "work");
      request.putObject("backoff").put("base_ms", 100).put("exponent", 1.0).put("jitter_ms", 0);
      try (Taken taken = manualServer.takeOne(request)) {
        long failedAtMs = manualServer.nowMs();
        JsonNode failed = manualServer.fail(taken.id(), report("transient"));

        // 100 ms + 1^1 s + 0 jitter.
        long readyAtMs = failed.get("ready_at").longValue();
        assertThat(failed.get("failed_at").longValue()).isEqualTo(failedAtMs);
        assertThat(readyAtMs - failed.get("failed_at").longValue()).isEqualTo(1_100);
        manualServer.advance(Duration.ofMillis(1_099));
        assertThat(manualServer.getJob(taken.id()).get("status").textValue())
            .as("a millisecond before the retry").isEqualTo("scheduled");
        manualServer.advance(Duration.ofMillis(1));

        JsonNode again = taken.stream().nextJob();
        assertThat(id(again)).isEqualTo(taken.id());
        assertThat(again.get("attempts").intValue()).isEqualTo(1);
        assertThat(again.get("dequeued_at").longValue()).isEqualTo(readyAtMs);
        manualServer.ack(taken.id());
      }
    }
  }

  @Nested
  class Death {
    @Test
    void killMakesTheJobDeadWithDefaultRetention() {
      try (Taken taken = takeOne()) {
        long beforeMs = System.currentTimeMillis();

        JsonNode failed = server.fail(taken.id(), report("fatal").put("kill", true));

        long afterMs = System.currentTimeMillis();
        assertThat(failed.get("status").textValue()).isEqualTo("dead");
        assertThat(failed.get("attempts").intValue()).isEqualTo(1);
        assertThat(failed.get("purge_at").longValue())
            .isBetween(beforeMs + DEAD_RETENTION_MS, afterMs + DEAD_RETENTION_MS);
        assertThat(failed.get("failed_at").longValue()).isBetween(beforeMs, afterMs);
        assertThat(failed.has("completed_at")).isFalse();

        JsonNode stored = server.getJob(taken.id());
        assertThat(stored.get("status").textValue()).isEqualTo("dead");
        assertThat(stored.get("purge_at")).isEqualTo(failed.get("purge_at"));
        Reply ack = server.post("/jobs/" + taken.id() + "/success");
        assertThat(ack.status()).isEqualTo(404);
        assertThat(ack.error()).isEqualTo("job not found in in-flight set");
        Reply again = server.postJson("/jobs/" + taken.id() + "/failure", report("again"));
        assertThat(again.status()).isEqualTo(404);
        assertThat(again.error()).isEqualTo("job not found in in-flight set");
      }
    }

    @Test
    void zeroRetryLimitKillsOnTheFirstFailure() {
      ObjectNode request = job(uniqueName("fail-zero"), "work").put("retry_limit", 0);
      try (Taken taken = server.takeOne(request)) {
        JsonNode failed = server.fail(taken.id(), report("no retries"));

        assertThat(failed.get("status").textValue()).isEqualTo("dead");
        assertThat(failed.get("attempts").intValue()).isEqualTo(1);
        assertThat(failed.has("purge_at")).isTrue();
      }
    }

    @Test
    void killFalseDoesNotPreventDeathByRetryLimit() {
      ObjectNode request = job(uniqueName("fail-zero-nokill"), "work").put("retry_limit", 0);
      try (Taken taken = server.takeOne(request)) {
        JsonNode failed = server.fail(taken.id(), report("no retries").put("kill", false));

        assertThat(failed.get("status").textValue()).isEqualTo("dead");
      }
    }

    @Test
    void killWithFalseDoesNotKill() {
      try (Taken taken = takeOne()) {
        JsonNode failed = server.fail(taken.id(), report("soft").put("kill", false));

        assertThat(failed.get("status").textValue()).isEqualTo("scheduled");
      }
    }

    @Test
    void deadJobWithoutRetentionIsReportedDeadThenGone() {
      ObjectNode request = job(uniqueName("fail-purge"), "work");
      request.putObject("retention").put("dead_ms", 0);
      try (Taken taken = server.takeOne(request)) {
        JsonNode failed = server.fail(taken.id(), report("gone").put("kill", true));

        assertThat(failed.get("status").textValue()).isEqualTo("dead");
        assertThat(failed.has("purge_at")).isFalse();
        assertThat(server.get("/jobs/" + taken.id()).status()).isEqualTo(404);
        assertThat(server.get("/jobs/" + taken.id() + "/errors").status()).isEqualTo(404);
      }
    }
  }

  @Nested
  class ErrorRecords {
    @Test
    void listShowsTheRecordWithPages() {
      try (Taken taken = takeOne()) {
        JsonNode failed = server.fail(taken.id(), report("boom"));

        Reply reply = server.get("/jobs/" + taken.id() + "/errors");

        assertThat(reply.status()).isEqualTo(200);
        JsonNode body = reply.json();
        assertThat(EnqueueHttpTest.fieldNames(body)).containsExactly("errors", "pages");
        assertThat(body.get("errors")).hasSize(1);
        JsonNode record = body.get("errors").get(0);
        assertThat(EnqueueHttpTest.fieldNames(record))
            .containsExactly("attempt", "dequeued_at", "failed_at", "message");
        assertThat(record.get("attempt").intValue()).isEqualTo(1);
        assertThat(record.get("message").textValue()).isEqualTo("boom");
        assertThat(record.get("dequeued_at").longValue()).isEqualTo(taken.dequeuedAtMs());
        assertThat(record.get("failed_at")).isEqualTo(failed.get("failed_at"));
        JsonNode pages = body.get("pages");
        assertThat(EnqueueHttpTest.fieldNames(pages)).containsExactly("next", "prev", "self");
        assertThat(pages.get("self").textValue()).startsWith("/jobs/" + taken.id() + "/errors");
        assertThat(pages.get("next").isNull()).isTrue();
        assertThat(pages.get("prev").isNull()).isTrue();
      }
    }

    @Test
    void singleRecordByAttemptNumber() {
      try (Taken taken = takeOne()) {
        server.fail(taken.id(), report("kaput").put("error_type", "IOError")
            .put("backtrace", "at line 1\nat line 2"));

        Reply reply = server.get("/jobs/" + taken.id() + "/errors/1");

        assertThat(reply.status()).isEqualTo(200);
        JsonNode record = reply.json();
        assertThat(record.get("attempt").intValue()).isEqualTo(1);
        assertThat(record.get("message").textValue()).isEqualTo("kaput");
        assertThat(record.get("error_type").textValue()).isEqualTo("IOError");
        assertThat(record.get("backtrace").textValue()).isEqualTo("at line 1\nat line 2");
        assertThat(record.get("dequeued_at").longValue()).isEqualTo(taken.dequeuedAtMs());
        JsonNode listed = server.get("/jobs/" + taken.id() + "/errors").json().get("errors").get(0);
        assertThat(record).isEqualTo(listed);
      }
    }

    @Test
    void eachFailureAddsARecord() {
      try (Taken taken = takeOne()) {
        server.fail(taken.id(), report("one").put("retry_at", 0));
        JsonNode second = taken.stream().nextJob();
        server.fail(taken.id(), report("two").put("kill", true));

        JsonNode errors = server.get("/jobs/" + taken.id() + "/errors").json().get("errors");

        assertThat(errors).hasSize(2);
        assertThat(errors.get(0).get("attempt").intValue()).isEqualTo(1);
        assertThat(errors.get(0).get("message").textValue()).isEqualTo("one");
        assertThat(errors.get(0).get("dequeued_at").longValue()).isEqualTo(taken.dequeuedAtMs());
        assertThat(errors.get(1).get("attempt").intValue()).isEqualTo(2);
        assertThat(errors.get(1).get("message").textValue()).isEqualTo("two");
        assertThat(errors.get(1).get("dequeued_at"))
            .isEqualTo(second.get("dequeued_at"));
        JsonNode descending =
            server.get("/jobs/" + taken.id() + "/errors?order=desc").json().get("errors");
        assertThat(descending.get(0).get("attempt").intValue()).isEqualTo(2);
      }
    }

    @Test
    void listIsPagedByAttempt() {
      try (Taken taken = takeOne()) {
        server.fail(taken.id(), report("one").put("retry_at", 0));
        taken.stream().nextJob();
        server.fail(taken.id(), report("two").put("retry_at", 0));
        String base = "/jobs/" + taken.id() + "/errors";

        JsonNode first = server.get(base + "?limit=1").json();

        assertThat(first.get("errors")).hasSize(1);
        assertThat(first.get("errors").get(0).get("message").textValue()).isEqualTo("one");
        JsonNode pages = first.get("pages");
        assertThat(pages.get("self").textValue()).isEqualTo(base + "?order=asc&limit=1");
        assertThat(pages.get("next").textValue()).isEqualTo(base + "?from=1&order=asc&limit=1");
        assertThat(pages.get("prev").isNull()).isTrue();

        JsonNode second = server.get(pages.get("next").textValue()).json();

        assertThat(second.get("errors")).hasSize(1);
        assertThat(second.get("errors").get(0).get("message").textValue()).isEqualTo("two");
        assertThat(second.get("pages").get("next").isNull()).isTrue();
        assertThat(second.get("pages").get("prev").textValue())
            .isEqualTo(base + "?from=2&order=desc&limit=1");
      }
    }

    @ParameterizedTest
    @ValueSource(strings = {"limit=0", "limit=2001", "limit=x", "order=sideways", "page=2",
        "from=abc"})
    void badListParametersAreRejected(String query) {
      String jobId = server.enqueueId(uniqueName("errors-params"));

      Reply reply = server.get("/jobs/" + jobId + "/errors?" + query);

      assertThat(reply.status()).isEqualTo(400);
      assertThat(reply.json().has("error")).isTrue();
    }

    @Test
    void missingAttemptIsErrorRecordNotFound() {
      try (Taken taken = takeOne()) {
        server.fail(taken.id(), report("boom"));

        for (String attempt : new String[] {"2", "0"}) {
          Reply reply = server.get("/jobs/" + taken.id() + "/errors/" + attempt);
          assertThat(reply.status()).as("attempt %s", attempt).isEqualTo(404);
          assertThat(reply.error()).isEqualTo("error record not found");
        }
      }
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "-1", "1.5"})
    void nonNumericAttemptIsBadRequest(String attempt) {
      try (Taken taken = takeOne()) {
        server.fail(taken.id(), report("boom"));

        Reply reply = server.get("/jobs/" + taken.id() + "/errors/" + attempt);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.json().has("error")).isTrue();
      }
    }

    @Test
    void jobWithoutFailuresHasAnEmptyList() {
      String jobId = server.enqueueId(uniqueName("no-errors"));

      Reply reply = server.get("/jobs/" + jobId + "/errors");

      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.json().get("errors")).isEmpty();
      assertThat(reply.json().get("pages").get("next").isNull()).isTrue();
    }

    @Test
    void unknownJobIsJobNotFound() {
      for (String path : new String[] {"/errors", "/errors/1"}) {
        Reply reply = server.get("/jobs/zzzzzzzzzzzzzzzzzzzzzzzzz" + path);
        assertThat(reply.status()).as(path).isEqualTo(404);
        assertThat(reply.error()).isEqualTo("job not found");
      }
    }
  }

  @Nested
  class BadReports {
    @ParameterizedTest
    @ValueSource(strings = {
      "{}",
      "{\"error_type\":\"X\"}",
      "{\"message\":5}",
      "{\"message\":\"m\",\"kill\":\"yes\"}",
      "{\"message\":\"m\",\"retry_at\":-1}",
      "{\"message\":\"m\",\"retry_at\":\"soon\"}",
      "not json"
    })
    void isBadRequestAndLeavesTheJobInFlight(String body) {
      try (Taken taken = takeOne()) {
        Reply reply = server.postJson("/jobs/" + taken.id() + "/failure", body);

        assertThat(reply.status()).isEqualTo(400);
        assertThat(reply.error()).startsWith("invalid JSON: ");
        assertThat(server.getJob(taken.id()).get("status").textValue()).isEqualTo("in_flight");
        assertThat(server.getJob(taken.id()).get("attempts").intValue()).isZero();
        server.ack(taken.id());
      }
    }

    @Test
    void unknownJobIsNotInFlight() {
      Reply reply = server.postJson("/jobs/zzzzzzzzzzzzzzzzzzzzzzzzz/failure", report("x"));

      assertThat(reply.status()).isEqualTo(404);
      assertThat(reply.error()).isEqualTo("job not found in in-flight set");
    }

    @Test
    void readyJobIsNotInFlight() {
      String jobId = server.enqueueId(uniqueName("fail-ready"));

      Reply reply = server.postJson("/jobs/" + jobId + "/failure", report("x"));

      assertThat(reply.status()).isEqualTo(404);
      assertThat(reply.error()).isEqualTo("job not found in in-flight set");
      assertThat(server.getJob(jobId).get("attempts").intValue()).isZero();
    }

    @Test
    void messagePackReportGetsMessagePackJob() {
      try (Taken taken = takeOne()) {
        Reply reply = server.postMsgpack("/jobs/" + taken.id() + "/failure",
            toMsgpack(report("packed").put("kill", true)));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.contentType()).isEqualTo(MSGPACK_TYPE);
        JsonNode failed = reply.msgpack();
        assertThat(failed.get("status").textValue()).isEqualTo("dead");
        assertThat(failed.get("attempts").isIntegralNumber()).isTrue();
        assertThat(server.get("/jobs/" + taken.id() + "/errors/1").json().get("message")
            .textValue()).isEqualTo("packed");
      }
    }
  }
}

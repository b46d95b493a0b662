package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * X4 across SIGKILL on the real process: two time_based budgets of 10 per minute, one durable,
 * are drained by a worker (10 jobs each at once), the server is killed and restarted on the same
 * data. The durable budget dispatches nothing before the instant an uninterrupted server would
 * have refilled its next token (6 s after the drain); the other bursts 10 again at once
 * (BUDGETS.md §10).
 */
class DurableBudgetCrashTest {
  /** 10 per minute: one token every 6 s. */
  private static final long TOKEN_MS = 6_000;
  private static final String DURABLE_QUEUE = "durable-q";
  private static final String PLAIN_QUEUE = "plain-q";

  @TempDir Path tmp;

  @RegisterExtension final CrashServers servers = new CrashServers();

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aDurableBudgetStaysSpentAcrossSigkillWhileAPlainOneStartsFull() throws Exception {
    Path root = tmp.resolve("root");
    SluiceProcess first = servers.start(root, tmp);
    putBudget(first, "durable", true);
    putBudget(first, "plain", false);
    JobCalls.enqueue(first, 20, 20, n -> bound(DURABLE_QUEUE, "durable"));
    JobCalls.enqueue(first, 20, 20, n -> bound(PLAIN_QUEUE, "plain"));

    // The durable bucket is drained no earlier than this: its last refill L is at or after it.
    long drainedNoEarlierThanMs = System.currentTimeMillis();
    TakeReader durable = servers.take(first, "queue=" + DURABLE_QUEUE + "&prefetch=100");
    TakeReader plain = servers.take(first, "queue=" + PLAIN_QUEUE + "&prefetch=100");
    durable.take(10, Duration.ofSeconds(5));
    plain.take(10, Duration.ofSeconds(5));
    assertThat(durable.poll(Duration.ofMillis(200))).as("the durable bucket is empty").isNull();
    assertThat(first.sigkill()).isEqualTo(CrashServers.SIGKILL_STATUS);

    SluiceProcess second = servers.start(root, tmp);
    long refillAtOrAfterMs = drainedNoEarlierThanMs + TOKEN_MS;
    TakeReader durableAgain = servers.take(second, "queue=" + DURABLE_QUEUE + "&prefetch=100");
    TakeReader plainAgain = servers.take(second, "queue=" + PLAIN_QUEUE + "&prefetch=100");

    plainAgain.take(10, Duration.ofSeconds(5));
    assertThat(System.currentTimeMillis())
        .as("the plain budget burst again well before a token could have dripped")
        .isLessThan(refillAtOrAfterMs);
    JsonNode next = durableAgain.poll(Duration.ofMillis(TOKEN_MS + 5_000));
    long arrivedAtMs = System.currentTimeMillis();
    assertThat(next).as("the durable budget dispatches again once a token has dripped")
        .isNotNull();
    assertThat(arrivedAtMs).as("no durable job before an uninterrupted server's refill")
        .isGreaterThanOrEqualTo(refillAtOrAfterMs);
    assertThat(durableAgain.poll(Duration.ofMillis(1_000)))
        .as("one token, one job: the next drips 6 s later").isNull();
    assertThat(plainAgain.poll(Duration.ofMillis(1))).as("the plain budget's 11th job waits")
        .isNull();
  }

  private static String bound(String queue, String budget) {
    return "{\"type\":\"call\",\"queue\":\"" + queue + "\",\"payload\":{},\"budgets\":[{\"key\":\""
        + budget + "\"}]}";
  }

  private static void putBudget(SluiceProcess server, String key, boolean durable)
      throws Exception {
    String policy = "{\"allocation\":10,\"strategy\":{\"type\":\"time_based\",\"duration_ms\":"
        + 60_000 + "},\"durable\":" + durable + "}";
    HttpResponse<String> response = server.http().send(
        HttpRequest.newBuilder(server.uri("/budgets/" + key))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(policy, StandardCharsets.UTF_8))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }
}

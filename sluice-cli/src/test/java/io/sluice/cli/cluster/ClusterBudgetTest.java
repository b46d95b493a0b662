package io.sluice.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.crash.TakeReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Budgets hold across a failover (issue 18): a {@code while_in_flight} budget of 1 never has two
 * jobs in flight on the new leader, and a durable {@code time_based} budget that spent its burst
 * on the old leader admits nothing more on the new one until it refills.
 */
class ClusterBudgetTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration QUIET = Duration.ofMillis(1500);

  @TempDir Path dir;
  private LocalCluster cluster;

  @BeforeEach
  void startCluster() throws Exception {
    cluster = LocalCluster.start(dir, 3);
  }

  @AfterEach
  void stopCluster() {
    cluster.close();
  }

  @Test
  void aConcurrencyBudgetOfOneNeverHasTwoJobsInFlightAcrossAFailover() throws Exception {
    String leader = cluster.awaitLeader(TIMEOUT);
    put(leader, "/budgets/one", "{\"allocation\":1,\"strategy\":{\"type\":\"while_in_flight\"}}");
    for (int n = 0; n < 4; n++) {
      post(leader, "/jobs", job("b", n, "{\"key\":\"one\"}"));
    }
    try (TakeReader worker = new TakeReader(cluster.process(leader), "queue=b&prefetch=4")) {
      assertThat(worker.take(1, TIMEOUT)).hasSize(1);
      assertThat(worker.poll(QUIET)).as("a second job while the first is in flight").isNull();
      cluster.kill(leader);
    }

    String next = cluster.awaitLeader(TIMEOUT);
    try (TakeReader first = new TakeReader(cluster.process(next), "queue=b&prefetch=4");
        TakeReader second = new TakeReader(cluster.process(next), "queue=b&prefetch=4")) {
      JsonNode held = firstOf(first, second);
      assertThat(held).as("the job in flight on the old leader is ready again").isNotNull();
      assertThat(first.poll(QUIET)).isNull();
      assertThat(second.poll(Duration.ZERO)).isNull();
      assertThat(state(next, "one").at("/in_flight/jobs").asInt()).isEqualTo(1);

      post(next, "/jobs/" + held.get("id").asText() + "/success", null);
      assertThat(firstOf(first, second)).as("the next job once the first is acknowledged")
          .isNotNull();
      assertThat(state(next, "one").at("/in_flight/jobs").asInt()).isEqualTo(1);
    }
  }

  @Test
  void aDurableRateBudgetDoesNotAdmitMoreAcrossAFailover() throws Exception {
    String leader = cluster.awaitLeader(TIMEOUT);
    put(leader, "/budgets/rate", "{\"allocation\":3,\"strategy\":{\"type\":\"time_based\","
        + "\"duration_ms\":600000},\"durable\":true}");
    for (int n = 0; n < 6; n++) {
      post(leader, "/jobs", job("r", n, "{\"key\":\"rate\"}"));
    }
    try (TakeReader worker = new TakeReader(cluster.process(leader), "queue=r&prefetch=10")) {
      for (JsonNode job : worker.take(3, TIMEOUT)) {
        post(leader, "/jobs/" + job.get("id").asText() + "/success", null);
      }
      assertThat(worker.poll(QUIET)).as("a fourth job within the burst's window").isNull();
    }
    cluster.kill(leader);

    String next = cluster.awaitLeader(TIMEOUT);
    assertThat(state(next, "rate").get("tokens").asDouble()).isLessThan(1);
    try (TakeReader worker = new TakeReader(cluster.process(next), "queue=r&prefetch=10")) {
      assertThat(worker.poll(QUIET)).as("a job admitted on the new leader").isNull();
    }
  }

  private static JsonNode firstOf(TakeReader first, TakeReader second) throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      for (TakeReader reader : List.of(first, second)) {
        JsonNode job = reader.poll(Duration.ofMillis(50));
        if (job != null) {
          return job;
        }
      }
    }
    return null;
  }

  private static String job(String queue, int n, String binding) {
    return "{\"type\":\"work\",\"queue\":\"" + queue + "\",\"payload\":{\"n\":" + n
        + "},\"budgets\":[" + binding + "]}";
  }

  private JsonNode state(String node, String budget) throws Exception {
    HttpResponse<String> response = cluster.http().send(
        HttpRequest.newBuilder(cluster.url(node, "/budgets/" + budget + "?state=true")).GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return LocalCluster.JSON.readTree(response.body()).get("state");
  }

  private void put(String node, String path, String body) throws Exception {
    send(node, path, "PUT", body);
  }

  private void post(String node, String path, String body) throws Exception {
    send(node, path, "POST", body);
  }

  private void send(String node, String path, String method, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(cluster.url(node, path))
        .header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> response =
        cluster.http().send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(method + " " + path + ": " + response.body())
        .isBetween(200, 299);
  }
}

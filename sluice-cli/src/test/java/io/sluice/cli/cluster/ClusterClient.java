package io.sluice.cli.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A producer and a worker that find the leader as a plain HTTP client would: they follow a
 * {@code 307}, read the leader from a {@code 503}, and move on to another node when one refuses
 * connections. They record what the cluster acknowledged, so a test can check that nothing
 * acknowledged was lost or delivered again.
 */
final class ClusterClient {
  private final LocalCluster cluster;
  private final String queue;
  /** Enqueues answered 2xx. */
  final Set<String> enqueued = ConcurrentHashMap.newKeySet();
  /** Acknowledgements answered 2xx. */
  final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
  /** Jobs delivered again after their acknowledgement was answered 2xx. */
  final Set<String> deliveredAfterAck = ConcurrentHashMap.newKeySet();
  final AtomicInteger deliveries = new AtomicInteger();

  ClusterClient(LocalCluster cluster, String queue) {
    this.cluster = cluster;
    this.queue = queue;
  }

  /** Enqueues jobs one by one until {@code stop}. */
  void produce(BooleanSupplier stop) throws InterruptedException {
    String target = cluster.runningIds().get(0);
    int n = 0;
    while (!stop.getAsBoolean()) {
      String body = "{\"type\":\"work\",\"queue\":\"" + queue + "\",\"payload\":{\"n\":" + n + "}}";
      try {
        HttpResponse<String> response = cluster.http().send(
            HttpRequest.newBuilder(cluster.url(target, "/jobs"))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
        int status = response.statusCode();
        if (status / 100 == 2) {
          enqueued.add(LocalCluster.JSON.readTree(response.body()).get("id").asText());
          n++;
        } else if (status == 307) {
          target = cluster.idOf(response.headers().firstValue("Location").orElseThrow());
        } else {
          target = leaderOrNext(response, target);
          Thread.sleep(50);
        }
      } catch (IOException e) {
        target = next(target);
        Thread.sleep(50);
      }
    }
  }

  /** Takes jobs and acknowledges each, reconnecting to the leader, until {@code stop}. */
  void work(BooleanSupplier stop) throws InterruptedException {
    String target = cluster.runningIds().get(0);
    while (!stop.getAsBoolean()) {
      try {
        HttpResponse<InputStream> response = cluster.http().send(
            HttpRequest.newBuilder(cluster.url(target, "/jobs/take?queue=" + queue + "&prefetch=1"))
                .header("Accept", "application/x-ndjson").GET().build(),
            HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
          String body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
          target = response.statusCode() == 503
              ? leaderOrNext(LocalCluster.JSON.readTree(body), target)
              : next(target);
          Thread.sleep(50);
          continue;
        }
        if (!workOn(target, response.body(), stop)) {
          target = next(target);
        }
      } catch (IOException e) {
        target = next(target);
        Thread.sleep(50);
      }
    }
  }

  /** Reads and acknowledges jobs until the stream ends or an ack fails; false then. */
  private boolean workOn(String node, InputStream stream, BooleanSupplier stop)
      throws IOException, InterruptedException {
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
      String line;
      while (!stop.getAsBoolean() && (line = lines.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        String id = LocalCluster.JSON.readTree(line).get("id").asText();
        deliveries.incrementAndGet();
        if (acknowledged.contains(id)) {
          deliveredAfterAck.add(id);
        }
        HttpResponse<String> ack = cluster.http().send(
            HttpRequest.newBuilder(cluster.url(node, "/jobs/" + id + "/success"))
                .timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.noBody()).build(),
            HttpResponse.BodyHandlers.ofString());
        if (ack.statusCode() / 100 != 2) {
          return false;
        }
        acknowledged.add(id);
      }
    }
    return stop.getAsBoolean();
  }

  private String leaderOrNext(HttpResponse<String> response, String current) {
    try {
      return leaderOrNext(LocalCluster.JSON.readTree(response.body()), current);
    } catch (IOException e) {
      return next(current);
    }
  }

  private String leaderOrNext(JsonNode body, String current) {
    JsonNode leader = body.path("leader");
    return leader.isTextual() ? cluster.idOf(leader.asText()) : next(current);
  }

  private String next(String current) {
    List<String> ids = cluster.ids();
    return ids.get((ids.indexOf(current) + 1) % ids.size());
  }
}

package io.sluice.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real nodes on loopback (issue 18): clients are sent to the leader, and a leader killed
 * under load is replaced within seconds with nothing that was acknowledged lost or delivered
 * again; the killed node rejoins and catches up.
 */
class ClusterFailoverTest {
  private static final Duration ELECTION = Duration.ofSeconds(30);
  private static final Duration FAILOVER_LIMIT = Duration.ofSeconds(5);

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
  void followersSendRequestsToTheLeaderAndStreamsAway() throws Exception {
    String leader = cluster.awaitLeader(ELECTION);
    String follower = cluster.runningIds().stream().filter(id -> !id.equals(leader))
        .findFirst().orElseThrow();

    HttpResponse<String> enqueue = cluster.postJson(follower, "/jobs?x=1",
        "{\"type\":\"work\",\"queue\":\"q\",\"payload\":{}}");
    assertThat(enqueue.statusCode()).isEqualTo(307);
    assertThat(enqueue.headers().firstValue("Location"))
        .contains(cluster.baseUrl(leader) + "/jobs?x=1");

    HttpResponse<String> take = cluster.http().send(
        HttpRequest.newBuilder(cluster.url(follower, "/jobs/take?queue=q")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(take.statusCode()).isEqualTo(503);
    assertThat(take.headers().firstValue("Retry-After")).contains("1");
    assertThat(LocalCluster.JSON.readTree(take.body()).get("leader").asText())
        .isEqualTo(cluster.baseUrl(leader));

    JsonNode status = cluster.status(follower);
    assertThat(status.get("role").asText()).isEqualTo("follower");
    assertThat(status.get("leader_id").asText()).isEqualTo(leader);
    assertThat(status.get("peers")).hasSize(3);
    assertThat(cluster.status(leader).get("role").asText()).isEqualTo("leader");
    long committed = cluster.status(leader).get("commit_index").asLong();
    long deadline = System.nanoTime() + ELECTION.toNanos();
    while (!everyPeerMatches(cluster.status(leader), committed)) {
      assertThat(System.nanoTime()).as("the leader's match indexes reach %d: %s", committed,
          cluster.status(leader)).isLessThan(deadline);
      Thread.sleep(50);
    }
    for (JsonNode peer : status.get("peers")) {
      assertThat(peer.get("match_index").asLong()).as("a follower knows no match index")
          .isEqualTo(-1);
    }
  }

  /**
   * One failover by default; {@code -Dsluice.cluster.failovers=20} makes it the soak run: the
   * leader is killed again and again under the same load, each killed node started again.
   */
  @Test
  void aLeaderKilledUnderLoadIsReplacedWithNothingAcknowledgedLost() throws Exception {
    int rounds = Integer.getInteger("sluice.cluster.failovers", 1);
    String leader = cluster.awaitLeader(ELECTION);
    ClusterClient client = new ClusterClient(cluster, "q");
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (Runnable role : List.<Runnable>of(
        () -> run(() -> client.produce(stop::get), failures),
        () -> run(() -> client.produce(stop::get), failures),
        () -> run(() -> client.work(stop::get), failures))) {
      Thread thread = new Thread(role, "cluster-client");
      thread.start();
      threads.add(thread);
    }
    List<Long> failoverMillis = new ArrayList<>();
    awaitAtLeast(client, 200, Duration.ofSeconds(30));
    for (int round = 1; round <= rounds; round++) {
      int enqueuedBeforeKill = client.enqueued.size();
      int acknowledgedBeforeKill = client.acknowledged.size();
      long killedAt = System.nanoTime();
      cluster.kill(leader);
      String newLeader = cluster.awaitLeader(ELECTION);
      Duration failover = Duration.ofNanos(System.nanoTime() - killedAt);
      failoverMillis.add(failover.toMillis());
      awaitAtLeast(client, client.acknowledged.size() + 200, Duration.ofSeconds(30));
      assertThat(newLeader).isNotEqualTo(leader);
      String died = leader;
      assertThat(failover).as("round %d: kill to a new leader serving; the survivors said:%n%s",
          round, cluster.runningIds().stream().filter(id -> !id.equals(died))
              .map(id -> id + ":\n" + takeover(cluster.output(id)))
              .collect(java.util.stream.Collectors.joining("\n")))
          .isLessThan(FAILOVER_LIMIT);
      assertThat(client.enqueued.size()).isGreaterThan(enqueuedBeforeKill);
      assertThat(client.acknowledged.size()).isGreaterThan(acknowledgedBeforeKill);

      cluster.restart(leader);
      long target = cluster.status(newLeader).get("commit_index").asLong();
      cluster.awaitApplied(leader, target, Duration.ofSeconds(30));
      assertThat(cluster.status(leader).get("role").asText()).isEqualTo("follower");
      leader = newLeader;
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(30_000);
    }

    assertThat(failures).isEmpty();
    assertThat(client.deliveredAfterAck).as("jobs delivered again after their ack").isEmpty();
    for (String id : client.enqueued) {
      HttpResponse<String> job = cluster.http().send(
          HttpRequest.newBuilder(cluster.url(leader, "/jobs/" + id)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(job.statusCode()).as("enqueued job %s on the leader", id).isEqualTo(200);
      if (client.acknowledged.contains(id)) {
        assertThat(LocalCluster.JSON.readTree(job.body()).get("status").asText())
            .as("acknowledged job %s", id).isEqualTo("completed");
      }
    }
    List<Long> sorted = failoverMillis.stream().sorted().toList();
    System.out.printf("failovers: %d, kill to serving ms: median %d, max %d, all %s; %d enqueued,"
        + " %d acknowledged, %d deliveries%n", rounds, sorted.get(sorted.size() / 2),
        sorted.get(sorted.size() - 1), failoverMillis, client.enqueued.size(),
        client.acknowledged.size(), client.deliveries.get());
  }

  /** The lines in which a node told of its last elections and recoveries. */
  private static String takeover(String output) {
    List<String> lines = output.lines()
        .filter(line -> line.contains("leader is now") || line.contains("leading term")
            || line.contains("recovered") || line.contains("no longer leading"))
        .toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
  }

  private static boolean everyPeerMatches(JsonNode leaderStatus, long index) {
    for (JsonNode peer : leaderStatus.get("peers")) {
      if (peer.get("match_index").asLong() < index) {
        return false;
      }
    }
    return true;
  }

  private interface Body {
    void run() throws Exception;
  }

  private static void run(Body body, List<Throwable> failures) {
    try {
      body.run();
    } catch (Throwable e) {
      synchronized (failures) {
        failures.add(e);
      }
    }
  }

  private static void awaitAtLeast(ClusterClient client, int acknowledged, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (client.acknowledged.size() < acknowledged) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("only " + client.acknowledged.size() + " of " + acknowledged
            + " acknowledgements within " + timeout + " (" + client.enqueued.size()
            + " enqueued)");
      }
      Thread.sleep(20);
    }
  }
}

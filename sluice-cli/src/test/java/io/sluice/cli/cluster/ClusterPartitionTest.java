package io.sluice.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader cut off from both followers (in network namespaces the test sets up) cannot get a
 * write acknowledged; the majority elects a leader and serves; once the network heals the old
 * leader follows, catches up, and every node holds exactly the same jobs.
 */
class ClusterPartitionTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration WRITE_WAIT = Duration.ofSeconds(6);

  @TempDir Path dir;
  private Netns net;
  private LocalCluster cluster;

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
    if (net != null) {
      net.close();
    }
  }

  @Test
  void aMinorityCannotAcceptWritesAndCatchesUpWithoutDivergingAfterHealing() throws Exception {
    assumeTrue(Netns.available(), "needs root and `ip netns` to cut the network");
    net = Netns.create(3);
    cluster = LocalCluster.start(dir, 3, List.of(), net);
    String leader = cluster.awaitLeader(TIMEOUT);
    Set<String> acknowledged = new HashSet<>(enqueue(leader, 10));
    List<String> majority = cluster.ids().stream().filter(id -> !id.equals(leader)).toList();
    for (String other : majority) {
      net.cut(number(leader), number(other));
    }

    Integer minorityStatus = tryEnqueue(leader);
    assertThat(minorityStatus == null || minorityStatus / 100 != 2)
        .as("a write on the cut-off leader was answered %s", minorityStatus).isTrue();

    String newLeader = cluster.awaitLeaderAmong(majority, TIMEOUT);
    acknowledged.addAll(enqueue(newLeader, 20));

    net.heal();
    String healedLeader = cluster.awaitLeader(TIMEOUT);
    assertThat(healedLeader).isIn(majority);
    long target = cluster.status(healedLeader).get("commit_index").asLong();
    cluster.awaitApplied(leader, target, TIMEOUT);
    assertThat(cluster.status(leader).get("role").asText()).isEqualTo("follower");

    for (String id : cluster.ids()) {
      cluster.kill(id);
    }
    Set<String> first = null;
    for (String id : cluster.ids()) {
      Set<String> stored = storedJobs(id);
      assertThat(stored).as("jobs on %s", id).containsAll(acknowledged);
      if (first == null) {
        first = stored;
      } else {
        assertThat(stored).as("jobs on %s against n1", id).isEqualTo(first);
      }
    }
  }

  private List<String> enqueue(String node, int count) throws Exception {
    StringBuilder body = new StringBuilder("{\"jobs\":[");
    for (int n = 0; n < count; n++) {
      body.append(n == 0 ? "" : ",").append("{\"type\":\"work\",\"queue\":\"q\",\"payload\":{}}");
    }
    HttpResponse<String> response = cluster.http().send(
        HttpRequest.newBuilder(cluster.url(node, "/jobs/bulk"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.append("]}").toString())).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
    return LocalCluster.JSON.readTree(response.body()).findValuesAsText("id");
  }

  /** The status of an enqueue, or null when none came within {@link #WRITE_WAIT}. */
  private Integer tryEnqueue(String node) throws InterruptedException {
    try {
      return cluster.http().send(
          HttpRequest.newBuilder(cluster.url(node, "/jobs")).timeout(WRITE_WAIT)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(
                  "{\"type\":\"work\",\"queue\":\"q\",\"payload\":{\"minority\":true}}"))
              .build(),
          HttpResponse.BodyHandlers.ofString()).statusCode();
    } catch (IOException e) {
      return null;
    }
  }

  private Set<String> storedJobs(String id) {
    Set<String> stored = new HashSet<>();
    try (RocksJobStore store = new RocksJobStore(
        new StoreConfig(cluster.root(id).resolve("data"), 8L << 20))) {
      store.scanJobs(job -> stored.add(job.id().toString()));
    }
    return stored;
  }

  private static int number(String id) {
    return Integer.parseInt(id.substring(1));
  }
}

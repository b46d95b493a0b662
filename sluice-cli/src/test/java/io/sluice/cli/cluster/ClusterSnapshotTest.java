package io.sluice.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.job.JobId;
import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
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
 * A follower that lost its disk while the leader purged its log behind a snapshot comes back by
 * receiving that snapshot, then the rest of the log, and ends holding exactly the leader's jobs.
 */
class ClusterSnapshotTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  /** Enough bytes of log for the 8 MB segments to roll, so purging has something to drop. */
  private static final int REQUESTS = 40;
  private static final int JOBS_PER_REQUEST = 500;

  @TempDir Path dir;
  private LocalCluster cluster;

  @AfterEach
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aWipedFollowerCatchesUpBySnapshot() throws Exception {
    cluster = LocalCluster.start(dir, 3, List.of("--snapshot-every", "20"));
    String leader = cluster.awaitLeader(TIMEOUT);
    String wiped = cluster.runningIds().stream().filter(id -> !id.equals(leader))
        .findFirst().orElseThrow();
    cluster.kill(wiped);
    cluster.wipe(wiped);

    Set<String> enqueued = new HashSet<>();
    String pad = "x".repeat(600);
    for (int request = 0; request < REQUESTS; request++) {
      StringBuilder body = new StringBuilder("{\"jobs\":[");
      for (int n = 0; n < JOBS_PER_REQUEST; n++) {
        body.append(n == 0 ? "" : ",").append("{\"type\":\"work\",\"queue\":\"q\",\"payload\":")
            .append("{\"n\":").append(request * JOBS_PER_REQUEST + n)
            .append(",\"pad\":\"").append(pad).append("\"}}");
      }
      HttpResponse<String> response = cluster.http().send(
          HttpRequest.newBuilder(cluster.url(leader, "/jobs/bulk"))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body.append("]}").toString())).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
      for (JsonNode job : LocalCluster.JSON.readTree(response.body()).get("jobs")) {
        enqueued.add(job.get("id").asText());
      }
    }
    JsonNode leaderStatus = awaitPurged(leader);
    assertThat(leaderStatus.get("snapshot_index").asLong()).isPositive();

    cluster.restart(wiped);
    long target = cluster.status(leader).get("commit_index").asLong();
    JsonNode caughtUp = cluster.awaitApplied(wiped, target, TIMEOUT);
    assertThat(caughtUp.get("snapshot_index").asLong())
        .as("the wiped node holds a snapshot it received").isPositive();
    assertThat(cluster.output(wiped)).contains("store restored from the leader's snapshot");

    cluster.kill(wiped);
    Set<String> stored = new HashSet<>();
    try (RocksJobStore store = new RocksJobStore(
        new StoreConfig(cluster.root(wiped).resolve("data"), 8L << 20))) {
      store.scanJobs(job -> stored.add(job.id().toString()));
      JobId last = JobId.parseOrNull(enqueued.stream().max(String::compareTo).orElseThrow());
      assertThat(store.readPayload(last)).isNotNull();
    }
    assertThat(stored).isEqualTo(enqueued);
  }

  /** Waits until the node's log no longer starts at its first entry. */
  private JsonNode awaitPurged(String id) throws Exception {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      JsonNode status = cluster.status(id);
      if (status != null && status.path("log_start_index").asLong(0) > 1) {
        return status;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(id + " never purged its log: " + status);
      }
      Thread.sleep(100);
    }
  }
}

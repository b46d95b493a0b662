package io.sluice.cli.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.CliRunner;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication channel with mutual TLS: nodes with certificates from the cluster's CA
 * (`sluice tls peer-cert`) replicate; a node whose certificate another CA signed is kept out.
 */
class ClusterTlsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path dir;
  private LocalCluster cluster;

  @AfterEach
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void nodesReplicateOverMutualTlsAndAStrangerIsKeptOut() throws Exception {
    Path certs = dir.resolve("certs");
    Path strangers = dir.resolve("strangers");
    sluice("tls", "ca", "--out-dir", certs.toString());
    sluice("tls", "ca", "--out-dir", strangers.toString());
    for (String node : List.of("n1", "n2")) {
      sluice("tls", "peer-cert", "--out-dir", certs.toString(), "--name", node,
          "--san", "127.0.0.1");
    }
    // n3's certificate names it correctly, but another CA signed it.
    sluice("tls", "peer-cert", "--out-dir", strangers.toString(), "--name", "n3",
        "--san", "127.0.0.1");
    Path n3Cert = strangers.resolve("peer-n3-cert.pem");
    Path n3Key = strangers.resolve("peer-n3-key.pem");
    java.nio.file.Files.copy(n3Cert, certs.resolve("peer-n3-cert.pem"));
    java.nio.file.Files.copy(n3Key, certs.resolve("peer-n3-key.pem"));

    cluster = LocalCluster.start(dir, 3, List.of(
        "--cluster-tls-cert", certs.resolve("peer-{id}-cert.pem").toString(),
        "--cluster-tls-key", certs.resolve("peer-{id}-key.pem").toString(),
        "--cluster-tls-ca", certs.resolve("ca-cert.pem").toString()));
    String leader = cluster.awaitLeaderAmong(List.of("n1", "n2"), TIMEOUT);
    HttpResponse<String> enqueue = cluster.postJson(leader, "/jobs",
        "{\"type\":\"work\",\"queue\":\"q\",\"payload\":{}}");
    assertThat(enqueue.statusCode()).as(enqueue.body()).isEqualTo(201);

    long committed = cluster.status(leader).get("commit_index").asLong();
    String follower = leader.equals("n1") ? "n2" : "n1";
    cluster.awaitApplied(follower, committed, TIMEOUT);
    Thread.sleep(2_000);
    JsonNode stranger = cluster.status("n3");
    assertThat(stranger.path("applied_index").asLong(-1))
        .as("the node with a foreign certificate applied nothing: %s", stranger)
        .isLessThan(committed);
    assertThat(stranger.path("leader_id").isNull()
        || stranger.path("leader_id").isMissingNode()).as("n3 knows no leader: %s", stranger)
        .isTrue();
  }

  private static void sluice(String... args) {
    CliRunner.Result result = CliRunner.sluice(args);
    assertThat(result.exitCode()).as(result.toString()).isZero();
  }
}

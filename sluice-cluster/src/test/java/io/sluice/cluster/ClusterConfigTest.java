package io.sluice.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterConfigTest {
  @Test
  void peersAreParsedInOrderWithIpv6InBrackets() {
    List<ClusterConfig.Peer> peers =
        ClusterConfig.parsePeers("n1=10.0.0.1:9101, n2=node-two.local:9102,n3=[::1]:9103");
    assertThat(peers).containsExactly(
        new ClusterConfig.Peer("n1", "10.0.0.1", 9101),
        new ClusterConfig.Peer("n2", "node-two.local", 9102),
        new ClusterConfig.Peer("n3", "::1", 9103));
    assertThat(peers.get(2).address()).isEqualTo("[::1]:9103");
  }

  @Test
  void malformedPeersAreRefusedByName() {
    assertThatThrownBy(() -> ClusterConfig.parsePeers(""))
        .hasMessageContaining("--peers is empty");
    assertThatThrownBy(() -> ClusterConfig.parsePeers("n1=host"))
        .hasMessageContaining("invalid peer 'n1=host'");
    assertThatThrownBy(() -> ClusterConfig.parsePeers("n1=host:0"))
        .hasMessageContaining("port 1-65535");
    assertThatThrownBy(() -> ClusterConfig.parsePeers("n1=a:1,n1=b:2"))
        .hasMessageContaining("peer id 'n1' appears twice");
    assertThatThrownBy(() -> ClusterConfig.parsePeers("n1=a:1,n2=a:1"))
        .hasMessageContaining("two peers in --peers share the address a:1");
    assertThatThrownBy(() -> ClusterConfig.parsePeers("n 1=a:1"))
        .hasMessageContaining("invalid peer id in --peers 'n 1'");
  }

  @Test
  void theNodeMustBeOneOfThePeers() {
    List<ClusterConfig.Peer> peers = ClusterConfig.parsePeers("n1=a:1,n2=b:2");
    assertThatThrownBy(() -> config("n3", peers))
        .hasMessageContaining("--peers does not list this node's id 'n3'");
    assertThat(config("n2", peers).self()).isEqualTo(new ClusterConfig.Peer("n2", "b", 2));
  }

  @Test
  void theGroupIdDependsOnlyOnTheClusterId() {
    List<ClusterConfig.Peer> peers = ClusterConfig.parsePeers("n1=a:1,n2=b:2");
    assertThat(config("n1", peers).groupId()).isEqualTo(config("n2", peers).groupId());
    assertThat(new ClusterConfig("other", "n1", peers, Path.of("r"), false, Duration.ofSeconds(1), 100, null)
        .groupId()).isNotEqualTo(config("n1", peers).groupId());
  }

  private static ClusterConfig config(String nodeId, List<ClusterConfig.Peer> peers) {
    return new ClusterConfig("prod", nodeId, peers, Path.of("raft"), false, Duration.ofSeconds(1), 100, null);
  }
}

package io.sluice.cluster;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import org.apache.ratis.protocol.RaftGroupId;

/**
 * One node's view of its cluster: who it is, who its peers are (itself included), where its Raft
 * log lives, and whether that log is fsynced before an entry counts as stored.
 *
 * @param syncLog true when a commit mode is {@code fsync}: an entry counts once fsynced on a
 *     majority; false: once written (not flushed) on a majority.
 * @param electionTimeout the shortest time a follower waits for its leader before it stands for
 *     election (the longest is twice as long).
 * @param snapshotEvery log entries between two snapshots of the store
 * @param tls mutual TLS of the replication channel, or null for plain gRPC
 */
public record ClusterConfig(String clusterId, String nodeId, List<Peer> peers, Path raftDir,
    boolean syncLog, Duration electionTimeout, long snapshotEvery, ReplicationTls tls) {
  public static final long DEFAULT_SNAPSHOT_EVERY = 10_000;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

  /**
   * Mutual TLS between nodes: this node's certificate and key (it both serves its peers and
   * connects to them), and what it trusts in a peer's certificate.
   */
  public record ReplicationTls(KeyManager keyManager, TrustManager trustManager) {}

  /** One member of the cluster and the address its Raft replication listens on. */
  public record Peer(String id, String host, int port) {
    public String address() {
      return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
  }

  public ClusterConfig {
    peers = List.copyOf(peers);
    requireName(clusterId, "--cluster-id");
    requireName(nodeId, "--node-id");
    if (snapshotEvery < 1) {
      throw new IllegalArgumentException("snapshots must be at least 1 entry apart");
    }
    if (peers.stream().noneMatch(peer -> peer.id().equals(nodeId))) {
      throw new IllegalArgumentException("--peers does not list this node's id '" + nodeId + "'");
    }
  }

  /** This node's own entry in {@link #peers}. */
  public Peer self() {
    return peers.stream().filter(peer -> peer.id().equals(nodeId)).findFirst().orElseThrow();
  }

  /** The Raft group's id, the same on every node given the same cluster id. */
  public RaftGroupId groupId() {
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(("sluice:" + clusterId).getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Parses {@code id=host:port,id=host:port,…}; an IPv6 host is written in brackets. Ids are
   * unique names; every port is 1–65535.
   */
  public static List<Peer> parsePeers(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("--peers is empty (expected id=host:port,...)");
    }
    List<Peer> peers = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (String part : text.split(",", -1)) {
      String item = part.trim();
      int equals = item.indexOf('=');
      int colon = item.lastIndexOf(':');
      if (equals <= 0 || colon <= equals + 1 || colon == item.length() - 1) {
        throw new IllegalArgumentException(
            "invalid peer '" + item + "' in --peers (expected id=host:port)");
      }
      String id = item.substring(0, equals);
      requireName(id, "peer id in --peers");
      String host = item.substring(equals + 1, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      int port;
      try {
        port = Integer.parseInt(item.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (port < 1 || port > 65535 || host.isEmpty()) {
        throw new IllegalArgumentException(
            "invalid peer '" + item + "' in --peers (expected id=host:port, port 1-65535)");
      }
      if (!ids.add(id)) {
        throw new IllegalArgumentException("peer id '" + id + "' appears twice in --peers");
      }
      Peer peer = new Peer(id, host, port);
      if (peers.stream().anyMatch(other -> other.address().equals(peer.address()))) {
        throw new IllegalArgumentException("two peers in --peers share the address "
            + peer.address());
      }
      peers.add(peer);
    }
    return peers;
  }

  private static void requireName(String value, String what) {
    if (value == null || !NAME.matcher(value).matches()) {
      throw new IllegalArgumentException("invalid " + what + " '" + value
          + "' (expected 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit)");
    }
  }
}

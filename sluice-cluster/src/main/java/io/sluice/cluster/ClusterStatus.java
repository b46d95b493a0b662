package io.sluice.cluster;

import java.util.List;

/**
 * One node's view of its cluster, as {@code GET /cluster} shows it.
 *
 * @param leaderUrl the leader's primary listener, once it has announced it; else null
 * @param snapshotIndex the last entry held by this node's newest snapshot (-1 without one)
 * @param logStartIndex the first entry still in this node's log (those before are purged)
 * @param peers every member: the highest log index this node knows it to have committed, and,
 *     on the leader, the last entry the leader knows it holds (its match index); -1 unknown
 */
public record ClusterStatus(String clusterId, String nodeId, String role, long term,
    String leaderId, String leaderUrl, long commitIndex, long appliedIndex, long snapshotIndex,
    long logStartIndex, List<PeerStatus> peers) {

  /** One member of the group. */
  public record PeerStatus(String id, String address, long commitIndex, long matchIndex) {}
}

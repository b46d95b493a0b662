package io.sluice.cluster;

/** What a node does when its role changes; called on Ratis threads, so it must not block. */
public interface Roles {
  /** This node leads {@code term}, and every entry of earlier terms is in its store. */
  void leading(long term);

  /** Another node leads now, or none is known ({@code leaderId} null). */
  void following(String leaderId);

  /** The node's Raft server stopped (on close, or after a failure it cannot go on from). */
  void stopped();
}

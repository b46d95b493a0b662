package io.sluice.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.api.ApiConfig;
import io.sluice.api.ClusterView;
import io.sluice.api.FollowerListener;
import io.sluice.cluster.ClusterConfig;
import io.sluice.cluster.ClusterNode;
import io.sluice.cluster.ClusterStatus;
import io.sluice.cluster.LeaderUrls;
import io.sluice.cluster.ReplicatedJobStore;
import io.sluice.cluster.Roles;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.EngineLoop;
import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
import java.io.IOException;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node of a replicated cluster (docs/cluster.md). It follows until Raft makes it the leader;
 * then it recovers an engine from its own store, whose commits go through the log, serves the
 * API and announces its URLs. When another node leads, it drops that engine unwritten and sends
 * clients there ({@link FollowerListener}). Role changes run one at a time on their own thread.
 */
final class ClusterServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterServer.class);
  /** Every turn goes to the commit thread, which groups them: a log round trip is not inline. */
  private static final long LEAD_RETRY_MS = 1_000;
  /** The exit status when the Raft server stopped on its own (EX_SOFTWARE). */
  private static final int EXIT_RAFT_STOPPED = 70;
  private static final EngineLoop.CommitModes THROUGH_THE_LOG = new EngineLoop.CommitModes(true,
      true);

  private final ClusterConfig clusterConfig;
  private final StoreConfig storeConfig;
  private final EngineConfig engineConfig;
  private final ApiConfig apiConfig;
  private final EngineLoop.CommitLimits commitLimits;
  private final InstantSource clock;
  private final ExecutorService roles = Executors.newSingleThreadExecutor(
      runnable -> new Thread(runnable, "sluice-cluster-roles"));
  private final View view = new View();
  private volatile ClusterNode node;
  /** Set and read on the roles thread only. */
  private FollowerListener follower;
  private SluiceServer leader;
  private long leaderTerm = -1;
  /** Set first on close: no role change starts after it, and a Raft stop is expected. */
  private volatile boolean closing;
  private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(
      runnable -> {
        Thread thread = new Thread(runnable, "sluice-cluster-retries");
        thread.setDaemon(true);
        return thread;
      });

  private ClusterServer(ClusterConfig clusterConfig, StoreConfig storeConfig,
      EngineConfig engineConfig, ApiConfig apiConfig, EngineLoop.CommitLimits commitLimits,
      InstantSource clock) {
    this.clusterConfig = clusterConfig;
    this.storeConfig = storeConfig;
    this.engineConfig = engineConfig;
    this.apiConfig = apiConfig;
    this.commitLimits = commitLimits;
    this.clock = clock;
  }

  static ClusterServer start(ClusterConfig clusterConfig, StoreConfig storeConfig,
      EngineConfig engineConfig, ApiConfig apiConfig, EngineLoop.CommitLimits commitLimits,
      InstantSource clock) {
    ClusterServer server = new ClusterServer(clusterConfig, storeConfig, engineConfig, apiConfig,
        commitLimits, clock);
    try {
      // The listeners bind first, so a taken port fails the start, not a later role change.
      server.roles.submit(server::follow).get(60, TimeUnit.SECONDS);
      server.node = ClusterNode.start(clusterConfig, storeConfig, new Roles() {
        @Override
        public void leading(long term) {
          server.onRolesThread(() -> server.lead(term));
        }

        @Override
        public void following(String leaderId) {
          server.onRolesThread(server::follow);
        }

        @Override
        public void stopped() {
          server.raftStopped();
        }
      });
      return server;
    } catch (Exception e) {
      server.close();
      Throwable cause = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
      throw new IllegalStateException("cluster node did not start: " + cause.getMessage(), cause);
    }
  }

  private void onRolesThread(Runnable change) {
    try {
      roles.execute(() -> {
        try {
          change.run();
        } catch (RuntimeException e) {
          LOG.error("role change failed", e);
        }
      });
    } catch (RejectedExecutionException e) {
      // Closing: Ratis may still report a role while it stops.
    }
  }

  /**
   * Ratis stopped this node's server. On close that is expected; otherwise (a store that cannot
   * be written, a failed snapshot install) the node can no longer replicate, so the process
   * ends, for its supervisor to restart it on what it has stored, rather than answer on as a
   * node that is not one.
   */
  private void raftStopped() {
    if (closing) {
      return;
    }
    LOG.error("the node's Raft server stopped unexpectedly; exiting");
    Thread exit = new Thread(() -> System.exit(EXIT_RAFT_STOPPED), "sluice-cluster-exit");
    exit.start();
  }

  private void lead(long term) {
    if (closing || (leader != null && leaderTerm == term)) {
      return;
    }
    stopLeading();
    long startedNanos = System.nanoTime();
    if (follower != null) {
      follower.close();
      follower = null;
    }
    try {
      RocksJobStore store = node.store();
      leader = SluiceServer.startOn(store, new ReplicatedJobStore(store, node, term), false,
          storeConfig, engineConfig, apiConfig, THROUGH_THE_LOG, commitLimits, clock, view,
          startedNanos);
      leaderTerm = term;
      node.announce(term, urls()).get(30, TimeUnit.SECONDS);
      LOG.info("leading term {}: serving in {} ms", term,
          (System.nanoTime() - startedNanos) / 1_000_000);
    } catch (Exception e) {
      LOG.error("could not start serving as the leader of term {}; trying again in {} ms", term,
          LEAD_RETRY_MS, e);
      stopLeading();
      follow();
      // Ratis says a leader is ready once per term: while this node still leads that term, it
      // must serve, or no node does.
      retries.schedule(() -> onRolesThread(() -> {
        if (node.leads(term)) {
          lead(term);
        }
      }), LEAD_RETRY_MS, TimeUnit.MILLISECONDS);
    }
  }

  private void follow() {
    if (closing) {
      return;
    }
    stopLeading();
    if (follower == null) {
      FollowerListener listener = new FollowerListener(apiConfig, view);
      try {
        listener.start();
      } catch (RuntimeException e) {
        listener.close();
        throw e;
      }
      follower = listener;
    }
  }

  private void stopLeading() {
    if (leader != null) {
      LOG.info("no longer leading term {}: engine dropped, clients sent to the new leader",
          leaderTerm);
      leader.abandon();
      leader = null;
      leaderTerm = -1;
    }
  }

  private LeaderUrls urls() {
    String apiUrl = url(apiConfig.tls() != null, apiConfig.host(), leader.port());
    String adminUrl = apiConfig.adminEnabled()
        ? url(apiConfig.adminTls() != null, apiConfig.adminHost(), leader.adminPort())
        : "";
    return new LeaderUrls(clusterConfig.nodeId(), apiUrl, adminUrl);
  }

  /** A wildcard listener is announced at the host this node's peers reach it on. */
  private String url(boolean tls, String host, int port) {
    String reachable = host.equals("0.0.0.0") || host.equals("::") || host.isEmpty()
        ? clusterConfig.self().host()
        : host;
    if (reachable.contains(":")) {
      reachable = "[" + reachable + "]";
    }
    return (tls ? "https" : "http") + "://" + reachable + ":" + port;
  }

  @Override
  public void close() {
    closing = true;
    retries.shutdownNow();
    try {
      roles.submit(() -> {
        if (follower != null) {
          follower.close();
          follower = null;
        }
        if (leader != null) {
          leader.close();
          leader = null;
        }
      }).get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("cluster node did not stop serving cleanly: {}", e.toString());
    }
    roles.shutdown();
    if (node != null) {
      try {
        node.close();
      } catch (IOException e) {
        LOG.warn("raft server did not close cleanly: {}", e.toString());
      }
    }
  }

  /** The cluster as the listeners show it. */
  private final class View implements ClusterView {
    @Override
    public Optional<String> leaderUrl(boolean admin) {
      ClusterNode current = node;
      if (current == null) {
        return Optional.empty();
      }
      return current.leaderUrls()
          .map(urls -> admin ? urls.adminUrl() : urls.apiUrl())
          .filter(url -> !url.isEmpty());
    }

    @Override
    public void writeStatus(JsonGenerator json) throws IOException {
      ClusterNode current = node;
      if (current == null) {
        json.writeStringField("role", "starting");
        return;
      }
      ClusterStatus status = current.status();
      json.writeStringField("cluster_id", status.clusterId());
      json.writeStringField("node_id", status.nodeId());
      json.writeStringField("role", status.role());
      json.writeNumberField("term", status.term());
      json.writeStringField("leader_id", status.leaderId());
      json.writeStringField("leader_url", status.leaderUrl());
      json.writeNumberField("commit_index", status.commitIndex());
      json.writeNumberField("applied_index", status.appliedIndex());
      json.writeNumberField("snapshot_index", status.snapshotIndex());
      json.writeNumberField("log_start_index", status.logStartIndex());
      json.writeArrayFieldStart("peers");
      for (ClusterStatus.PeerStatus peer : status.peers()) {
        json.writeStartObject();
        json.writeStringField("id", peer.id());
        json.writeStringField("address", peer.address());
        json.writeNumberField("commit_index", peer.commitIndex());
        json.writeNumberField("match_index", peer.matchIndex());
        json.writeEndObject();
      }
      json.writeEndArray();
    }
  }
}

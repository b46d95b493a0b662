package io.sluice.cluster;

import io.sluice.engine.store.JobStore;
import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.metrics.MetricRegistries;
import org.apache.ratis.metrics.MetricRegistryInfo;
import org.apache.ratis.metrics.impl.RatisMetricRegistryImpl;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.grpc.server.GrpcServerProtocolClient;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.RaftServerRpcWithProxy;
import org.apache.ratis.server.metrics.LogAppenderMetrics;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.thirdparty.com.codahale.metrics.Gauge;
import org.apache.ratis.thirdparty.com.codahale.metrics.Metric;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * This node's member of the Raft group (Apache Ratis over gRPC): replicates entries when it
 * leads, applies committed ones to the store ({@link SluiceStateMachine}), and reports its role.
 */
public final class ClusterNode implements AutoCloseable {
  /**
   * The most bytes of entries sent to a follower in one call; Ratis sizes its log's write buffer
   * past it (docs/decisions.md, "Raft entry size").
   */
  private static final SizeInBytes APPEND_BYTES = SizeInBytes.valueOf("32MB");
  private static final SizeInBytes LOG_WRITE_BUFFER = SizeInBytes.valueOf("33MB");
  /** How often the connections to peers are told to retry at once (see resetReconnectBackoff). */
  private static final long RECONNECT_CHECK_MS = 200;
  /** Log segments are purged whole, so they are kept small enough to go soon after a snapshot. */
  private static final SizeInBytes SEGMENT_SIZE = SizeInBytes.valueOf("8MB");

  private final ClusterConfig config;
  private final RaftServer server;
  private final SluiceStateMachine stateMachine;
  private final StoreSlot store;
  private final RaftPeerId selfId;
  private final ClientId clientId = ClientId.randomId();
  private final ScheduledExecutorService reconnects = Executors.newSingleThreadScheduledExecutor(
      runnable -> {
        Thread thread = new Thread(runnable, "sluice-cluster-reconnects");
        thread.setDaemon(true);
        return thread;
      });
  private final AtomicLong callIds = new AtomicLong();

  private ClusterNode(ClusterConfig config, RaftServer server, SluiceStateMachine stateMachine,
      StoreSlot store) {
    this.config = config;
    this.store = store;
    this.server = server;
    this.stateMachine = stateMachine;
    this.selfId = RaftPeerId.valueOf(config.nodeId());
  }

  /**
   * Joins the group and returns once this node's Raft server runs; {@code roles} hears when the
   * node leads (every earlier entry then in {@code store}) and when it follows.
   */
  public static ClusterNode start(ClusterConfig config, StoreConfig storeConfig, Roles roles)
      throws IOException {
    StoreSlot store = new StoreSlot(storeConfig);
    try {
      return start(config, store, roles);
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  private static ClusterNode start(ClusterConfig config, StoreSlot store, Roles roles)
      throws IOException {
    if (!store.current().numbersFamiliesInCreationOrder()) {
      throw new IllegalStateException("the store's column families are not numbered as a"
          + " cluster node's must be; start this node on an empty data directory");
    }
    if (isEmpty(config.raftDir()) && holdsData(store.current())) {
      // Its jobs are in no node's log: the others would never have them, and entries it
      // believes it holds would be skipped (docs/cluster.md, "Starting a cluster").
      throw new IllegalStateException("the data directory holds jobs but " + config.raftDir()
          + " holds no Raft log: a cluster node starts on an empty data directory (or on its"
          + " own data and log)");
    }
    List<RaftPeer> peers = config.peers().stream()
        .map(peer -> RaftPeer.newBuilder().setId(peer.id()).setAddress(peer.address()).build())
        .toList();
    RaftGroup group = RaftGroup.valueOf(config.groupId(), peers);
    SluiceStateMachine stateMachine = new SluiceStateMachine(store,
        config.peers().stream().map(ClusterConfig.Peer::id).toList(), roles);
    RaftServer server = RaftServer.newBuilder()
        .setServerId(RaftPeerId.valueOf(config.nodeId()))
        .setGroup(group)
        .setStateMachine(stateMachine)
        .setProperties(properties(config))
        .setParameters(parameters(config))
        .setOption(RaftStorage.StartupOption.RECOVER)
        .build();
    server.start();
    ClusterNode node = new ClusterNode(config, server, stateMachine, store);
    node.reconnects.scheduleWithFixedDelay(node::resetReconnectBackoff, RECONNECT_CHECK_MS,
        RECONNECT_CHECK_MS, TimeUnit.MILLISECONDS);
    return node;
  }

  private static Parameters parameters(ClusterConfig config) {
    ClusterConfig.ReplicationTls tls = config.tls();
    return tls == null
        ? new Parameters()
        : GrpcFactory.newRaftParameters(
            new GrpcTlsConfig(tls.keyManager(), tls.trustManager(), true));
  }

  private static boolean isEmpty(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return true;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    }
  }

  private static boolean holdsData(RocksJobStore store) {
    try (JobStore.JobScan jobs = store.scanJobs(null, false)) {
      if (jobs.hasNext()) {
        return true;
      }
    }
    AtomicBoolean budgets = new AtomicBoolean();
    store.scanBudgets(budget -> budgets.set(true));
    return budgets.get();
  }

  private static RaftProperties properties(ClusterConfig config) {
    RaftProperties properties = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(properties, List.of(config.raftDir().toFile()));
    GrpcConfigKeys.Server.setHost(properties, config.self().host());
    GrpcConfigKeys.Server.setPort(properties, config.self().port());
    GrpcConfigKeys.setMessageSizeMax(properties, SizeInBytes.valueOf("80MB"));
    // Heartbeats on the append stream, not a stream of their own: a follower then handles a
    // leader's heartbeats and appends one at a time. Handled side by side, they could race in
    // Ratis 3.1.3's follower append path, and the append that lost the race left every later
    // append failing: a healed node never caught up (docs/cluster.md, "Known problems").
    GrpcConfigKeys.Server.setHeartbeatChannel(properties, false);
    long electionMs = config.electionTimeout().toMillis();
    RaftServerConfigKeys.Rpc.setTimeoutMin(properties,
        TimeDuration.valueOf(electionMs, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Rpc.setTimeoutMax(properties,
        TimeDuration.valueOf(2 * electionMs, TimeUnit.MILLISECONDS));
    RaftServerConfigKeys.Log.setUnsafeFlushEnabled(properties, !config.syncLog());
    RaftServerConfigKeys.Log.setWriteBufferSize(properties, LOG_WRITE_BUFFER);
    RaftServerConfigKeys.Log.setSegmentSizeMax(properties, SEGMENT_SIZE);
    // A snapshot (a checkpoint: hard links) every so many entries; the log is purged behind it
    // even when a follower still needs what is purged: that follower gets the snapshot.
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(properties, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(properties, config.snapshotEvery());
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(properties, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(properties, true);
    RaftServerConfigKeys.Log.setPurgeGap(properties, 1);
    RaftServerConfigKeys.Log.Appender.setInstallSnapshotEnabled(properties, true);
    RaftServerConfigKeys.Log.Appender.setBufferByteLimit(properties, APPEND_BYTES);
    // The engine never resends a commit, so replies need not be kept for long.
    RaftServerConfigKeys.RetryCache.setExpiryTime(properties,
        TimeDuration.valueOf(10, TimeUnit.SECONDS));
    return properties;
  }

  /**
   * Appends a commit written by the engine of {@code term} and completes once a majority stores
   * it and this node has applied it; fails if this node no longer leads that term.
   */
  public CompletableFuture<Void> replicate(long term, byte[] serializedBatch) {
    return submit(LogEntries.commit(term, serializedBatch));
  }

  /** Tells every node, through the log, where this node serves as the leader of {@code term}. */
  public CompletableFuture<Void> announce(long term, LeaderUrls urls) {
    return submit(LogEntries.announce(term, urls));
  }

  private CompletableFuture<Void> submit(ByteString entry) {
    RaftClientRequest request = RaftClientRequest.newBuilder()
        .setClientId(clientId)
        .setServerId(selfId)
        .setGroupId(config.groupId())
        .setCallId(callIds.incrementAndGet())
        .setMessage(Message.valueOf(entry))
        .setType(RaftClientRequest.writeRequestType())
        .build();
    try {
      return server.submitClientRequestAsync(request).thenApply(ClusterNode::requireSuccess);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static Void requireSuccess(RaftClientReply reply) {
    if (reply.isSuccess() && reply.getMessage() != null
        && !reply.getMessage().getContent().isEmpty()) {
      throw new NotReplicatedException(reply.getMessage().getContent().toStringUtf8(), null);
    }
    if (!reply.isSuccess()) {
      Exception failure = reply.getException();
      throw new NotReplicatedException(failure == null ? "entry not committed" : failure.toString(),
          failure);
    }
    return null;
  }

  /** Whether this node leads {@code term} now. */
  public boolean leads(long term) {
    try {
      DivisionInfo info = division().getInfo();
      return info.isLeader() && info.getCurrentTerm() == term;
    } catch (IOException e) {
      return false;
    }
  }

  /** The URLs of the node leading now, once it has announced them. */
  public Optional<LeaderUrls> leaderUrls() {
    try {
      RaftPeerId leader = division().getInfo().getLeaderId();
      return stateMachine.announcedBy(leader == null ? null : leader.toString());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** What {@code GET /cluster} shows. */
  public ClusterStatus status() throws IOException {
    RaftServer.Division division = division();
    DivisionInfo info = division.getInfo();
    RaftPeerId leader = info.getLeaderId();
    SnapshotInfo snapshot = stateMachine.getLatestSnapshot();
    Map<String, Long> committed = division.getCommitInfos().stream()
        .collect(Collectors.toMap(commit -> commit.getServer().getId().toStringUtf8(),
            CommitInfoProto::getCommitIndex, Math::max));
    Map<String, Long> matched = info.isLeader() ? matchIndexes(division) : Map.of();
    List<ClusterStatus.PeerStatus> peers = new ArrayList<>();
    for (ClusterConfig.Peer peer : config.peers()) {
      long match = peer.id().equals(config.nodeId()) && info.isLeader()
          ? division.getRaftLog().getFlushIndex()
          : matched.getOrDefault(peer.id(), -1L);
      peers.add(new ClusterStatus.PeerStatus(peer.id(), peer.address(),
          committed.getOrDefault(peer.id(), -1L), match));
    }
    return new ClusterStatus(config.clusterId(), config.nodeId(), role(info.getCurrentRole()),
        info.getCurrentTerm(), leader == null ? null : leader.toString(),
        leaderUrls().map(LeaderUrls::apiUrl).orElse(null),
        division.getRaftLog().getLastCommittedIndex(), info.getLastAppliedIndex(),
        snapshot == null ? -1 : snapshot.getIndex(), division.getRaftLog().getStartIndex(), peers);
  }

  /**
   * The leader's match index of each follower (the last entry it knows the follower holds).
   * Ratis keeps these inside its log appenders and shows them only as metrics gauges, so they
   * are read from this member's log-appender metrics registry.
   */
  private static Map<String, Long> matchIndexes(RaftServer.Division division) {
    String member = division.getMemberId().toString();
    Map<String, Long> matched = new HashMap<>();
    for (MetricRegistryInfo registryInfo : MetricRegistries.global().getMetricRegistryInfos()) {
      if (!registryInfo.getPrefix().equals(member)
          || !registryInfo.getMetricsComponentName()
              .equals(LogAppenderMetrics.RATIS_LOG_APPENDER_METRICS)) {
        continue;
      }
      MetricRegistries.global().get(registryInfo).ifPresent(registry -> {
        if (registry instanceof RatisMetricRegistryImpl gauges) {
          for (RaftPeer peer : division.getGroup().getPeers()) {
            Metric gauge = gauges.get(String.format(LogAppenderMetrics.FOLLOWER_MATCH_INDEX,
                peer.getId()));
            if (gauge instanceof Gauge<?> value && value.getValue() instanceof Number index) {
              matched.put(peer.getId().toString(), index.longValue());
            }
          }
        }
      });
    }
    return matched;
  }

  private static String role(RaftPeerRole role) {
    return switch (role) {
      case LEADER -> "leader";
      case FOLLOWER -> "follower";
      case CANDIDATE -> "candidate";
      case LISTENER -> "listener";
      default -> role.name().toLowerCase(Locale.ROOT);
    };
  }

  private RaftServer.Division division() throws IOException {
    return server.getDivision(config.groupId());
  }

  /**
   * Makes every connection to a peer that failed try again now rather than after gRPC's growing
   * backoff. Only a leader does this for its followers; a follower whose channel to a peer that
   * restarted is still backing off would see that peer as down for seconds in the next
   * election, and elections then took up to 7 s instead of about 1 (docs/decisions.md).
   */
  private void resetReconnectBackoff() {
    try {
      if (!(server.getServerRpc() instanceof RaftServerRpcWithProxy<?, ?> rpc)) {
        return;
      }
      for (ClusterConfig.Peer peer : config.peers()) {
        if (!peer.id().equals(config.nodeId())
            && rpc.getProxies().getProxy(RaftPeerId.valueOf(peer.id()))
                instanceof GrpcServerProtocolClient client) {
          client.resetConnectBackoff();
        }
      }
    } catch (IOException | RuntimeException e) {
      // Next time: a peer's proxy that cannot be made now is made again then.
    }
  }

  /** This node's store now (a snapshot received while following replaces it). */
  public RocksJobStore store() {
    return store.current();
  }

  /** Stops the Raft server, then closes the store. */
  @Override
  public void close() throws IOException {
    reconnects.shutdownNow();
    try {
      server.close();
    } finally {
      store.close();
    }
  }

  /** A commit or announcement the group did not take (no longer leader, or a stale term). */
  public static final class NotReplicatedException extends RuntimeException {
    NotReplicatedException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}

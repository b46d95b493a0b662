package io.sluice.cluster;

import io.sluice.store.rocks.RocksJobStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.FileUtils;
import org.apache.ratis.util.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies committed log entries to this node's store: a commit's write batch, or a leader's
 * announced URLs. Each entry is written with its log position in the same atomic write, so after
 * a crash the store knows which entries it holds and skips them when the log is replayed.
 *
 * <p>Snapshots are checkpoints of the store ({@link CheckpointSnapshots}); one received from the
 * leader replaces the store ({@link StoreSlot}). Ratis calls this from its own threads; it tells
 * {@link Roles} when the node starts leading (once every earlier entry is applied) and when
 * another node leads.
 */
final class SluiceStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceStateMachine.class);
  private static final byte[] APPLIED = "raft-applied".getBytes(StandardCharsets.UTF_8);
  private static final byte[] EMPTY_BATCH = new byte[12];
  private static final long CHECKPOINT_RETRY_NANOS = TimeUnit.SECONDS.toNanos(10);
  /** The answer to an entry written by an engine of another term than the entry's. */
  static final Message REFUSED = Message.valueOf("refused: written by an engine of another term");

  private final StoreSlot store;
  private final CheckpointSnapshots snapshots = new CheckpointSnapshots();
  private final List<String> peerIds;
  private final Roles roles;
  private final Map<String, LeaderUrls> announced = new ConcurrentHashMap<>();
  private final ExecutorService checkpointer = Executors.newSingleThreadExecutor(runnable -> {
    Thread thread = new Thread(runnable, "sluice-cluster-checkpoints");
    thread.setDaemon(true);
    return thread;
  });
  private final AtomicBoolean checkpointing = new AtomicBoolean();
  private volatile long nextCheckpointNanos = System.nanoTime();
  /** The highest log index the store holds; entries at or below it are not written again. */
  private volatile long storedIndex;

  SluiceStateMachine(StoreSlot store, List<String> peerIds, Roles roles) {
    this.store = store;
    this.peerIds = List.copyOf(peerIds);
    this.roles = roles;
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage storage)
      throws IOException {
    super.initialize(server, groupId, storage);
    getLifeCycle().startAndTransition(() -> {
      snapshots.init(storage);
      SnapshotInfo snapshot = snapshots.getLatestSnapshot();
      readStoredPosition();
      // A store behind its newest snapshot lost writes (its WAL is not fsynced in a cluster):
      // it restarts from the snapshot, and the log replays the rest.
      if (snapshot != null && storedIndex < snapshot.getIndex()) {
        LOG.warn("store holds the log up to index {}, behind the snapshot at {}: restoring it",
            storedIndex, snapshot.getIndex());
        restoreFrom(snapshot);
      }
      readAnnouncements();
      if (snapshot != null) {
        // Ratis replays the log from the entry after it; entries the store holds are skipped.
        setLastAppliedTermIndex(snapshot.getTermIndex());
      }
      LOG.info("store holds the replicated log up to index {} (snapshot: {})", storedIndex,
          snapshot == null ? "none" : snapshot.getTermIndex());
    });
  }

  private void readStoredPosition() {
    byte[] applied = store.current().readMarker(APPLIED);
    storedIndex = applied == null ? 0 : decodePosition(applied).getIndex();
  }

  private void readAnnouncements() {
    announced.clear();
    for (String id : peerIds) {
      byte[] urls = store.current().readMarker(urlsKey(id));
      if (urls != null) {
        announced.put(id, LeaderUrls.decode(urls));
      }
    }
  }

  private void restoreFrom(SnapshotInfo snapshot) throws IOException {
    store.replaceWith(snapshots.dirFor(snapshot.getTermIndex()));
    readStoredPosition();
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return snapshots;
  }

  @Override
  public SnapshotInfo getLatestSnapshot() {
    return snapshots.getLatestSnapshot();
  }

  /**
   * Starts a checkpoint of the store in the background, if none is running and the newest
   * snapshot is behind, and answers the newest finished snapshot (Ratis purges the log up to
   * it, and asks again with every applied entry until an answer reaches its threshold).
   *
   * <p>A RocksDB checkpoint flushes the memtables first, which held the applying thread, and so
   * every commit, for a few hundred milliseconds on each node at once; in the background the
   * entries keep flowing. The checkpoint is consistent at some entry, and the applied position
   * it holds (written atomically with each entry) names it.
   */
  @Override
  public long takeSnapshot() {
    SnapshotInfo current = snapshots.getLatestSnapshot();
    long latest = current == null ? -1 : current.getIndex();
    if (latest < storedIndex && System.nanoTime() >= nextCheckpointNanos
        && checkpointing.compareAndSet(false, true)) {
      checkpointer.execute(this::checkpoint);
    }
    return latest;
  }

  private void checkpoint() {
    Path inProgress = snapshots.newTemporaryDir("checkpoint-" + UUID.randomUUID());
    try {
      store.current().checkpoint(inProgress);
      byte[] applied = RocksJobStore.readMarker(inProgress, APPLIED);
      if (applied == null) {
        FileUtils.deleteFully(inProgress);
        return;
      }
      TermIndex held = decodePosition(applied);
      Path target = snapshots.dirFor(held);
      if (Files.exists(target)) {
        FileUtils.deleteFully(inProgress);
      } else {
        Files.move(inProgress, target, StandardCopyOption.ATOMIC_MOVE);
        snapshots.reload();
        LOG.info("snapshot taken at {}", held);
      }
    } catch (IOException | RuntimeException e) {
      // Not again at once: Ratis asks with every applied entry until a snapshot is taken.
      nextCheckpointNanos = System.nanoTime() + CHECKPOINT_RETRY_NANOS;
      LOG.warn("snapshot not taken: {}", e.toString());
      try {
        FileUtils.deleteFully(inProgress);
      } catch (IOException cleanup) {
        LOG.warn("could not remove a failed checkpoint at {}: {}", inProgress, cleanup.toString());
      }
    } finally {
      checkpointing.set(false);
    }
  }

  @Override
  public void close() throws IOException {
    checkpointer.shutdown();
    try {
      checkpointer.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    super.close();
  }

  /** Ratis pauses the state machine for every chunk of a snapshot it receives. */
  @Override
  public void pause() {
    if (getLifeCycle().compareAndTransition(LifeCycle.State.RUNNING, LifeCycle.State.PAUSING)) {
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  /** A snapshot from the leader has replaced the snapshots directory: the store follows it. */
  @Override
  public void reinitialize() throws IOException {
    getLifeCycle().startAndTransition(() -> {
      SnapshotInfo snapshot = snapshots.reload();
      if (snapshot == null) {
        throw new IOException("no snapshot to restore the store from");
      }
      restoreFrom(snapshot);
      readAnnouncements();
      setLastAppliedTermIndex(snapshot.getTermIndex());
      LOG.info("store restored from the leader's snapshot at {}", snapshot.getTermIndex());
    });
  }

  /**
   * Refuses, on the leader, an entry written by an engine of another term than the current one:
   * a node that lost leadership and won it back must not append what an engine built on the
   * state before someone else's entries.
   */
  @Override
  public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
    ByteString content = request.getMessage().getContent();
    long entryTerm = LogEntries.term(content);
    long currentTerm = getServer().join().getDivision(getGroupId()).getInfo().getCurrentTerm();
    if (entryTerm != currentTerm) {
      throw new StaleTermException(entryTerm, currentTerm);
    }
    return super.startTransaction(request);
  }

  /**
   * Writes a committed entry to the store with its log position, unless the store holds it
   * already. An entry whose engine term is not the term Ratis appended it in is not written on
   * any node, and its writer is told so ({@link #REFUSED}): the check in
   * {@link #startTransaction} runs before Ratis assigns the term, so a node that lost and won
   * back leadership in between could otherwise append an old engine's batch.
   */
  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext transaction) {
    LogEntryProto entry = transaction.getLogEntry();
    long index = entry.getIndex();
    long term = entry.getTerm();
    Message answer = Message.EMPTY;
    if (index > storedIndex) {
      ByteString content = entry.getStateMachineLogEntry().getLogData();
      List<RocksJobStore.Marker> markers = new ArrayList<>(2);
      markers.add(new RocksJobStore.Marker(APPLIED, encodePosition(term, index)));
      byte kind = LogEntries.kind(content);
      if (LogEntries.term(content) != term) {
        store.current().writeSerialized(EMPTY_BATCH, markers, false);
        answer = REFUSED;
      } else if (kind == LogEntries.COMMIT) {
        store.current().writeSerialized(LogEntries.body(content), markers, false);
      } else if (kind == LogEntries.ANNOUNCE) {
        LeaderUrls urls = LeaderUrls.decode(LogEntries.body(content));
        markers.add(new RocksJobStore.Marker(urlsKey(urls.nodeId()), urls.encode()));
        store.current().writeSerialized(EMPTY_BATCH, markers, false);
        announced.put(urls.nodeId(), urls);
      } else {
        return CompletableFuture.failedFuture(
            new IllegalStateException("unknown log entry kind " + kind + " at index " + index));
      }
      storedIndex = index;
    }
    updateLastAppliedTermIndex(term, index);
    return CompletableFuture.completedFuture(answer);
  }

  /** The URLs a node announced when it last led, if it ever did. */
  Optional<LeaderUrls> announcedBy(String nodeId) {
    return nodeId == null ? Optional.empty() : Optional.ofNullable(announced.get(nodeId));
  }

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeaderId) {
    LOG.info("leader is now {}", newLeaderId == null ? "unknown" : newLeaderId);
    if (newLeaderId == null || !newLeaderId.equals(member.getPeerId())) {
      roles.following(newLeaderId == null ? null : newLeaderId.toString());
    }
  }

  /**
   * This node stopped leading (Ratis calls this when a leader steps down, also when no other
   * leader is known yet, as when it is cut off from a majority): it drops its engine at once.
   */
  @Override
  public void notifyNotLeader(Collection<TransactionContext> pending) {
    LOG.info("no longer the leader ({} entries pending)", pending.size());
    roles.following(null);
  }

  /** Ratis stopped this node's server: on close, or after a failure it cannot go on from. */
  @Override
  public void notifyServerShutdown(RoleInfoProto roleInfo, boolean allServer) {
    roles.stopped();
  }

  @Override
  public void notifyLeaderReady() {
    try {
      long term = getServer().join().getDivision(getGroupId()).getInfo().getCurrentTerm();
      roles.leading(term);
    } catch (IOException e) {
      LOG.error("cannot read the term this node leads", e);
    }
  }

  /** The applied-position marker: the last entry's term, then its index. */
  private static byte[] encodePosition(long term, long index) {
    return ByteBuffer.allocate(2 * Long.BYTES).putLong(term).putLong(index).array();
  }

  private static TermIndex decodePosition(byte[] marker) {
    ByteBuffer position = ByteBuffer.wrap(marker);
    return TermIndex.valueOf(position.getLong(), position.getLong());
  }

  private static byte[] urlsKey(String nodeId) {
    return ("leader-urls/" + nodeId).getBytes(StandardCharsets.UTF_8);
  }

  /** An entry from an engine of an earlier term; the leader does not append it. */
  static final class StaleTermException extends IOException {
    StaleTermException(long entryTerm, long currentTerm) {
      super("entry from the engine of term " + entryTerm + " refused in term " + currentTerm);
    }
  }
}

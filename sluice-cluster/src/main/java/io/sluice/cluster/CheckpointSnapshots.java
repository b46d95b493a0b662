package io.sluice.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.SnapshotInfo;
import org.apache.ratis.statemachine.SnapshotRetentionPolicy;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.impl.FileListSnapshotInfo;
import org.apache.ratis.util.FileUtils;

/**
 * The state machine's snapshots: RocksDB checkpoints in {@code sm/snapshots/snapshot.T_I}, one
 * directory each, named by the term and index of the last entry they hold. Ratis sends their
 * files to a follower that is too far behind, writing them under {@code sm/tmp} first and then
 * replacing {@code sm/snapshots} with what it received; the live store is elsewhere.
 */
final class CheckpointSnapshots implements StateMachineStorage {
  private static final Pattern NAME = Pattern.compile("snapshot\\.(\\d+)_(\\d+)");
  /** Written by Ratis beside each received file. */
  private static final String DIGEST_SUFFIX = ".md5";

  private volatile File snapshotsDir;
  private volatile File tmpDir;
  private volatile SnapshotInfo latest;

  @Override
  public void init(RaftStorage storage) throws IOException {
    File stateMachineDir = storage.getStorageDir().getStateMachineDir();
    snapshotsDir = new File(stateMachineDir, "snapshots");
    tmpDir = new File(stateMachineDir, "tmp");
    Files.createDirectories(snapshotsDir.toPath());
    Files.createDirectories(tmpDir.toPath());
    // Checkpoints a crash left half made hold table files' space through their hard links.
    try (Stream<Path> leftovers = Files.list(tmpDir.toPath())) {
      for (Path leftover : leftovers
          .filter(dir -> dir.getFileName().toString().startsWith("checkpoint-")).toList()) {
        FileUtils.deleteFully(leftover);
      }
    }
    reload();
  }

  /**
   * Finds the newest snapshot again, after one was taken or received. The answer only moves
   * forward, so a listing made just before Ratis swapped in a received snapshot cannot replace
   * it.
   */
  synchronized SnapshotInfo reload() throws IOException {
    List<Path> all = snapshots();
    SnapshotInfo found = all.isEmpty() ? null : describe(all.get(all.size() - 1));
    if (found != null && (latest == null || found.getIndex() >= latest.getIndex())) {
      latest = found;
    }
    return latest;
  }

  /** A fresh directory for a checkpoint in progress, on the snapshots' file system. */
  Path newTemporaryDir(String name) {
    return tmpDir.toPath().resolve(name);
  }

  /** Where the snapshot of {@code last} is kept. */
  Path dirFor(TermIndex last) {
    return snapshotsDir.toPath().resolve("snapshot." + last.getTerm() + "_" + last.getIndex());
  }

  private List<Path> snapshots() throws IOException {
    try (Stream<Path> dirs = Files.list(snapshotsDir.toPath())) {
      return dirs.filter(Files::isDirectory)
          .filter(dir -> NAME.matcher(dir.getFileName().toString()).matches())
          .sorted(Comparator.comparingLong(dir -> termIndex(dir).getIndex()))
          .toList();
    }
  }

  private static SnapshotInfo describe(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      List<FileInfo> infos = files.filter(Files::isRegularFile)
          .filter(file -> !file.toString().endsWith(DIGEST_SUFFIX))
          // Absolute: Ratis reads sizes and contents through these paths.
          .map(file -> new FileInfo(file.toAbsolutePath(), null))
          .toList();
      return new FileListSnapshotInfo(infos, termIndex(dir));
    }
  }

  private static TermIndex termIndex(Path dir) {
    Matcher name = NAME.matcher(dir.getFileName().toString());
    if (!name.matches()) {
      throw new IllegalArgumentException("not a snapshot directory: " + dir);
    }
    return TermIndex.valueOf(Long.parseLong(name.group(1)), Long.parseLong(name.group(2)));
  }

  @Override
  public SnapshotInfo getLatestSnapshot() {
    return latest;
  }

  @Override
  public File getSnapshotDir() {
    return snapshotsDir;
  }

  @Override
  public File getTmpDir() {
    return tmpDir;
  }

  @Override
  public void format() {}

  @Override
  public void cleanupOldSnapshots(SnapshotRetentionPolicy policy) throws IOException {
    int keep = policy == null ? -1 : policy.getNumSnapshotsRetained();
    if (keep <= 0) {
      return;
    }
    List<Path> all = snapshots();
    for (Path old : all.subList(0, Math.max(0, all.size() - keep))) {
      FileUtils.deleteFully(old);
    }
  }
}

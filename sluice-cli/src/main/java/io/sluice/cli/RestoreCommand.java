package io.sluice.cli;

import io.sluice.api.BackupArchive;
import io.sluice.api.FileTrees;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sluice restore}: recreates a root directory from a backup archive, offline (CLI.md
 * §10.2). The archive's {@code sluice-data/} is extracted into a hidden directory beside the
 * root directory, which takes the root directory's place only once complete, so a failed restore
 * leaves nothing behind. Only directories and regular files under {@code sluice-data/} are
 * extracted: an entry that would land outside it ({@code ..}, an absolute path) and any link are
 * refused, since a backup never holds them.
 */
@Command(name = "restore", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "Recreate a root directory from a backup archive (the server must not run).")
final class RestoreCommand implements Callable<Integer> {
  private static final String TOP = BackupArchive.TOP;

  @Option(names = "--root-dir", defaultValue = "${env:SLUICE_ROOT_DIR:-./sluice-data}",
      description = "Root directory to create; if it exists it must be empty"
          + " (default: ${DEFAULT-VALUE}).")
  Path rootDir;

  @Parameters(paramLabel = "ARCHIVE", description = "A backup archive made by sluice backup.")
  Path archive;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    Path root = rootDir.toAbsolutePath().normalize();
    if (root.getParent() == null) {
      throw new OperatorException("cannot restore into " + root + "; name a directory below it");
    }
    if (!Files.isRegularFile(archive) || !Files.isReadable(archive)) {
      throw new OperatorException("cannot read " + archive + ": not a readable file");
    }
    if (Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
        throw new OperatorException(rootDir + " exists and is not a directory");
      }
      if (!isEmpty(root)) {
        throw new OperatorException(rootDir + " is not empty; restore into a new directory");
      }
    }
    out.println("Restoring from " + archive + " to " + rootDir + "...");
    out.flush();
    Files.createDirectories(root.getParent());
    Path staging = Files.createTempDirectory(root.getParent(),
        "." + root.getFileName() + ".restore-");
    boolean restored = false;
    try {
      extract(staging);
      if (!Files.isRegularFile(staging.resolve("data").resolve("CURRENT"))) {
        throw new OperatorException(archive + " is not a Sluice backup: it has no "
            + TOP + "data/CURRENT");
      }
      Files.deleteIfExists(root); // empty, as checked above
      Files.move(staging, root, StandardCopyOption.ATOMIC_MOVE);
      restored = true;
    } finally {
      if (!restored) {
        FileTrees.delete(staging);
      }
    }
    out.println("Restore complete.");
    return 0;
  }

  private void extract(Path staging) throws IOException {
    try (InputStream file = Files.newInputStream(archive);
        TarArchiveInputStream tar = new TarArchiveInputStream(
            new GzipCompressorInputStream(new BufferedInputStream(file)))) {
      for (TarArchiveEntry entry = tar.getNextEntry(); entry != null;
          entry = tar.getNextEntry()) {
        Path target = target(staging, entry.getName());
        if (entry.isDirectory()) {
          Files.createDirectories(target);
        } else if (isPlainFile(entry)) {
          Files.createDirectories(target.getParent());
          try (FileChannel channel = FileChannel.open(target, StandardOpenOption.CREATE_NEW,
              StandardOpenOption.WRITE); OutputStream sink = Channels.newOutputStream(channel)) {
            tar.transferTo(sink);
            channel.force(true);
          }
        } else {
          throw new OperatorException("refusing archive entry '" + entry.getName()
              + "': links and special files are never part of a Sluice backup");
        }
      }
    } catch (IOException e) {
      throw new OperatorException("cannot read " + archive + ": "
          + (e.getMessage() != null ? e.getMessage() : e.toString()));
    }
  }

  /** A regular file; Commons Compress's {@code isFile()} also holds for links. */
  private static boolean isPlainFile(TarArchiveEntry entry) {
    byte type = entry.getLinkFlag();
    return type == TarConstants.LF_NORMAL || type == TarConstants.LF_OLDNORM;
  }

  /** Where an entry goes under {@code staging}; refuses any that would land outside it. */
  private static Path target(Path staging, String name) {
    String relative = name.startsWith("./") ? name.substring(2) : name;
    if (relative.equals(TOP.substring(0, TOP.length() - 1))) {
      return staging;
    }
    if (!relative.startsWith(TOP)) {
      throw new OperatorException("refusing archive entry '" + name + "': a Sluice backup holds "
          + "only " + TOP);
    }
    String inside = relative.substring(TOP.length());
    Path target = staging;
    for (String segment : inside.split("/")) {
      if (segment.equals("..") || segment.contains("\\") || segment.contains("\0")) {
        throw new OperatorException("refusing archive entry '" + name
            + "': it points outside the restored directory");
      }
      if (!segment.isEmpty() && !segment.equals(".")) {
        target = target.resolve(segment);
      }
    }
    if (!target.normalize().startsWith(staging)) {
      throw new OperatorException("refusing archive entry '" + name
          + "': it points outside the restored directory");
    }
    return target;
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    }
  }
}

package io.sluice.api;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipParameters;

/**
 * Writes a backup archive (CLI.md §9): a gzip-compressed tar whose single top-level directory
 * {@value #TOP} holds the contents of a directory, e.g. {@code sluice-data/data/CURRENT}. The
 * fastest gzip level: the table files are compressed already.
 */
public final class BackupArchive {
  public static final String TOP = "sluice-data/";

  private BackupArchive() {}

  /**
   * Writes the archive of everything under {@code dir} to {@code out}, complete with the gzip
   * trailer; {@code out} is left open, so that its owner decides whether the body ended well.
   */
  static void write(Path dir, OutputStream out) throws IOException {
    GzipParameters gzip = new GzipParameters();
    gzip.setCompressionLevel(Deflater.BEST_SPEED);
    try (TarArchiveOutputStream tar = new TarArchiveOutputStream(
        new GzipCompressorOutputStream(new KeptOpen(out), gzip))) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
      List<Path> paths;
      try (Stream<Path> walk = Files.walk(dir)) {
        paths = walk.filter(path -> !path.equals(dir)).sorted().toList();
      }
      tar.putArchiveEntry(entry(dir, TOP));
      tar.closeArchiveEntry();
      for (Path path : paths) {
        String name = TOP + dir.relativize(path).toString().replace('\\', '/');
        boolean directory = Files.isDirectory(path);
        tar.putArchiveEntry(entry(path, directory ? name + "/" : name));
        if (!directory) {
          Files.copy(path, tar);
        }
        tar.closeArchiveEntry();
      }
      tar.finish();
    }
  }

  /**
   * A plain entry: name, size, modification time and the default modes, nothing more (no
   * extended headers that would make GNU tar complain).
   */
  private static TarArchiveEntry entry(Path path, String name) throws IOException {
    TarArchiveEntry entry = new TarArchiveEntry(name);
    entry.setModTime(Files.getLastModifiedTime(path));
    if (!entry.isDirectory()) {
      entry.setSize(Files.size(path));
    }
    return entry;
  }

  /** Passes writes through; closing only flushes, so the archive's end is not the body's. */
  private static final class KeptOpen extends FilterOutputStream {
    KeptOpen(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      out.write(bytes, offset, length);
    }

    @Override
    public void close() throws IOException {
      flush();
    }
  }
}

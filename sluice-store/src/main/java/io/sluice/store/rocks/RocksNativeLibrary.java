package io.sluice.store.rocks;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.zip.CRC32;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads RocksDB's native library from one extracted copy per build of it, kept in a directory of
 * this user's under the temporary directory, instead of RocksDB's own way: a fresh 15 MB copy per
 * process, deleted only at a normal exit. Every process that was killed (kill -9, the OOM killer,
 * a crash test) left its copy behind; one run of this project's tests left 70 (1.1 GB).
 *
 * <p>The copy's directory is named after the library's size and CRC in the jar, and a copy is
 * used only if its own bytes have that size and CRC; otherwise it is written again, to a file of
 * its own and renamed over, so processes starting side by side never load a half-written one.
 * The CRC only catches a damaged copy: what keeps others from replacing it is that the
 * directories must belong to this process's uid and be closed to everyone else. Anything
 * unexpected (no jar, another owner, no {@code unix:uid} attribute outside Linux, a failed write)
 * falls back to RocksDB's own loading, with a warning; so does {@code ROCKSDB_SHAREDLIB_DIR}
 * being set, which names a library of the operator's.
 */
final class RocksNativeLibrary {
  private static final Logger LOG = LoggerFactory.getLogger(RocksNativeLibrary.class);
  private static final Set<PosixFilePermission> OWNER_ONLY =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE,
          PosixFilePermission.OWNER_EXECUTE);

  /**
   * The file name {@link RocksDB#loadLibrary(List)} loads from a directory. It differs from the
   * jar entry's ("librocksdbjni-linux64.so" there, "librocksdbjnijni-linux64.so" here): that
   * method names the library by "rocksdbjni" where the jar's own loader says "rocksdb".
   */
  static final String LOADED_NAME = Environment.getJniLibraryFileName("rocksdbjni");

  private RocksNativeLibrary() {}

  static void load() {
    URL resource = RocksDB.class.getClassLoader()
        .getResource(Environment.getJniLibraryFileName("rocksdb"));
    if (resource == null || System.getenv("ROCKSDB_SHAREDLIB_DIR") != null) {
      RocksDB.loadLibrary(); // a library of the operator's, or none in a jar: RocksDB's own ways
      return;
    }
    try {
      Path directory = extracted(resource, LOADED_NAME, userDirectory());
      if (directory != null) {
        RocksDB.loadLibrary(List.of(directory.toString()));
        return;
      }
    } catch (IOException | RuntimeException | UnsatisfiedLinkError e) {
      LOG.warn("RocksDB's library loaded the default way, a copy per process: {}", e.toString());
    }
    RocksDB.loadLibrary();
  }

  /** {@code $TMPDIR/sluice-rocksdbjni-<uid>}, this process's user's. */
  private static Path userDirectory() throws IOException {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    return ownDirectory(tmp.resolve("sluice-rocksdbjni-" + processUid()));
  }

  /**
   * The uid this process runs as (Linux): compared as a number, since a container's user may
   * have no name ({@code user.name} is then "?").
   */
  private static int processUid() throws IOException {
    return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
  }

  /**
   * The directory under {@code parent} holding a checked copy of the jar entry {@code resource},
   * named {@code name}; written there first if need be. Null when the resource is not in a jar.
   */
  static Path extracted(URL resource, String name, Path parent) throws IOException {
    URLConnection connection = resource.openConnection();
    if (!(connection instanceof JarURLConnection jarConnection)) {
      return null;
    }
    connection.setUseCaches(false);
    try (JarFile jar = jarConnection.getJarFile()) {
      JarEntry entry = jar.getJarEntry(jarConnection.getEntryName());
      if (entry == null || entry.getSize() < 0 || entry.getCrc() < 0) {
        return null;
      }
      Path directory = ownDirectory(parent.resolve(entry.getSize() + "-"
          + Long.toHexString(entry.getCrc())));
      Path library = directory.resolve(name);
      if (!matches(library, entry.getSize(), entry.getCrc())) {
        deleteAbandonedCopies(directory);
        Path partial = Files.createTempFile(directory, name, ".partial");
        try {
          try (InputStream in = jar.getInputStream(entry)) {
            Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
          }
          if (!matches(partial, entry.getSize(), entry.getCrc())) {
            throw new IOException("the extracted " + name + " does not match the jar's entry");
          }
          Files.move(partial, library, StandardCopyOption.ATOMIC_MOVE,
              StandardCopyOption.REPLACE_EXISTING);
        } finally {
          Files.deleteIfExists(partial);
        }
      }
      return directory;
    }
  }

  private static boolean matches(Path file, long size, long crc) throws IOException {
    if (!Files.isRegularFile(file) || Files.size(file) != size) {
      return false;
    }
    CRC32 sum = new CRC32();
    byte[] buffer = new byte[1 << 16];
    try (InputStream in = Files.newInputStream(file)) {
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        sum.update(buffer, 0, read);
      }
    }
    return sum.getValue() == crc;
  }

  /** {@code directory}, created closed to others; refused unless it is this user's and closed. */
  private static Path ownDirectory(Path directory) throws IOException {
    if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
      try {
        Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
      } catch (FileAlreadyExistsException raced) {
        // Made by a process starting beside this one: checked below like any other.
      }
    }
    PosixFileAttributes attributes = Files.readAttributes(directory, PosixFileAttributes.class,
        LinkOption.NOFOLLOW_LINKS);
    int owner = (Integer) Files.getAttribute(directory, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    if (!attributes.isDirectory() || owner != processUid()
        || !OWNER_ONLY.containsAll(attributes.permissions())) {
      throw new IOException(directory + " is not a directory of this user's alone");
    }
    return directory;
  }

  /** Partial copies of processes killed while writing them, an hour old or more. */
  private static void deleteAbandonedCopies(Path directory) {
    long hourAgo = System.currentTimeMillis() - 3_600_000;
    try (DirectoryStream<Path> partials = Files.newDirectoryStream(directory, "*.partial")) {
      for (Path partial : partials) {
        if (Files.getLastModifiedTime(partial).toMillis() < hourAgo) {
          Files.deleteIfExists(partial);
        }
      }
    } catch (IOException e) {
      // Left for the next start.
    }
  }
}

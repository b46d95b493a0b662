package io.sluice.store.rocks;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
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

/**
 * Loads RocksDB's native library from one extracted copy per build of it, kept in a directory of
 * this user's under the temporary directory, instead of RocksDB's own way: a fresh 15 MB copy per
 * process, deleted only at a normal exit. Every process that was killed (kill -9, the OOM killer,
 * a crash test) left its copy behind; one run of this project's tests left 70 (1.1 GB).
 *
 * <p>The copy's directory is named after the library's size and CRC in the jar, and a copy is
 * used only if its own bytes have that size and CRC; otherwise it is written again, to a file of
 * its own and renamed over, so processes starting side by side never load a half-written one.
 * The directory must belong to this user and be closed to others. Anything unexpected (no jar,
 * another owner, a failed write) falls back to RocksDB's own loading.
 */
final class RocksNativeLibrary {
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
    Path directory = null;
    if (resource != null) {
      try {
        directory = extracted(resource, LOADED_NAME, userDirectory());
      } catch (IOException | RuntimeException e) {
        directory = null;
      }
    }
    if (directory != null) {
      try {
        RocksDB.loadLibrary(List.of(directory.toString()));
        return;
      } catch (UnsatisfiedLinkError e) {
        // RocksDB's own way below.
      }
    }
    RocksDB.loadLibrary();
  }

  private static Path userDirectory() throws IOException {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    return ownDirectory(tmp.resolve("sluice-rocksdbjni-" + System.getProperty("user.name")));
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
    if (!attributes.isDirectory()
        || !attributes.owner().getName().equals(System.getProperty("user.name"))
        || !OWNER_ONLY.containsAll(attributes.permissions())) {
      throw new IOException(directory + " is not a directory of this user's alone");
    }
    return directory;
  }
}

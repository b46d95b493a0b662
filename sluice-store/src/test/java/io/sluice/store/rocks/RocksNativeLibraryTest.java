package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Random;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One checked copy of the native library per build of it, reused by every process after. */
class RocksNativeLibraryTest {
  private static final FileTime LONG_AGO = FileTime.fromMillis(1_000_000_000_000L);
  private static final String NAME = "libx.so";

  @TempDir
  Path temp;
  /** Where the copies go: what {@code $TMPDIR/sluice-rocksdbjni-<uid>} is to the server. */
  private Path parent;
  private final byte[] bytes = library();

  @BeforeEach
  void makeParent() throws IOException {
    parent = Files.createDirectory(temp.resolve("cache"));
  }

  /** Extracts the library held by {@code jar} into {@link #parent}; its copy's directory. */
  private Path extract(URL jar) throws IOException {
    return RocksNativeLibrary.extracted(jar, NAME, parent);
  }

  /** A jar holding {@code library} as its entry {@link #NAME}, as RocksDB's holds its own. */
  private URL jarWith(byte[] library) throws IOException {
    Path jar = Files.createTempFile(temp, "lib", ".jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry(NAME));
      out.write(library);
      out.closeEntry();
    }
    return new URL("jar:" + jar.toUri() + "!/" + NAME);
  }

  private static byte[] library() {
    byte[] bytes = new byte[200_000];
    new Random(3).nextBytes(bytes);
    return bytes;
  }

  @Test
  void aCopyIsWrittenOnceAndThenReused() throws IOException {
    URL resource = jarWith(bytes);

    Path directory = extract(resource);
    Path copy = directory.resolve(NAME);
    assertThat(copy).hasBinaryContent(bytes);
    assertThat(directory.getParent()).isEqualTo(parent);
    Files.setLastModifiedTime(copy, LONG_AGO);

    assertThat(extract(resource)).isEqualTo(directory);
    assertThat(Files.getLastModifiedTime(copy)).as("not written again").isEqualTo(LONG_AGO);
    try (var files = Files.list(directory)) {
      assertThat(files).as("no partial copy left").containsExactly(copy);
    }
  }

  @Test
  void aDamagedCopyIsWrittenAgain() throws IOException {
    URL resource = jarWith(bytes);
    Path copy = extract(resource).resolve(NAME);

    byte[] damaged = bytes.clone();
    damaged[12_345] ^= 1;
    Files.write(copy, damaged);
    extract(resource);
    assertThat(copy).hasBinaryContent(bytes);

    Files.write(copy, new byte[10]);
    extract(resource);
    assertThat(copy).hasBinaryContent(bytes);
  }

  @Test
  void anotherBuildOfTheLibraryGetsADirectoryOfItsOwn() throws IOException {
    Path first = extract(jarWith(bytes));
    byte[] other = library();
    other[0] ^= 1;
    Path second = extract(jarWith(other));
    assertThat(second).isNotEqualTo(first);
    assertThat(second.resolve(NAME)).hasBinaryContent(other);
  }

  @Test
  void aDirectoryOpenToOthersIsNotUsed() throws IOException {
    URL resource = jarWith(bytes);
    Path directory = extract(resource);
    Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> extract(resource))
        .isInstanceOf(IOException.class).hasMessageContaining("not a directory of this user's");
  }

  @Test
  void aResourceOutsideAJarIsLeftToRocksDb() throws IOException {
    Path file = Files.write(temp.resolve(NAME), bytes);
    assertThat(extract(file.toUri().toURL())).isNull();
  }

  @Test
  void theStoreLoadsRocksDbFromTheUsersCopy() throws IOException {
    RocksNativeLibrary.load();
    String mapped;
    try (var lines = Files.lines(Path.of("/proc/self/maps"))) {
      mapped = lines.filter(line -> line.contains("rocksdbjni")).findFirst().orElseThrow();
    }
    // Another test of this JVM may have loaded RocksDB the default way first (through a RocksDB
    // class of its own); then there is nothing to check here.
    assumeFalse(mapped.matches(".*/librocksdbjni[0-9]+\\.so$"),
        "loaded by another test first: " + mapped);
    int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    Path users = Path.of(System.getProperty("java.io.tmpdir"), "sluice-rocksdbjni-" + uid);
    assertThat(mapped).contains(users.toString()).endsWith(RocksNativeLibrary.LOADED_NAME);
    try (org.rocksdb.Options options = new org.rocksdb.Options()) {
      assertThat(options.createIfMissing()).isFalse(); // a native call: the library works
    }
  }
}

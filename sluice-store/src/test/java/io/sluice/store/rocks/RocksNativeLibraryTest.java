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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One checked copy of the native library per build of it, reused by every process after. */
class RocksNativeLibraryTest {
  private static final FileTime LONG_AGO = FileTime.fromMillis(1_000_000_000_000L);

  @TempDir
  Path temp;

  private URL jarWith(String name, byte[] bytes) throws IOException {
    Path jar = temp.resolve("lib.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry(name));
      out.write(bytes);
      out.closeEntry();
    }
    return new URL("jar:" + jar.toUri() + "!/" + name);
  }

  private static byte[] library() {
    byte[] bytes = new byte[200_000];
    new Random(3).nextBytes(bytes);
    return bytes;
  }

  @Test
  void aCopyIsWrittenOnceAndThenReused() throws IOException {
    byte[] bytes = library();
    URL resource = jarWith("libx.so", bytes);
    Path parent = Files.createDirectory(temp.resolve("cache"));

    Path directory = RocksNativeLibrary.extracted(resource, "libx.so", parent);
    Path copy = directory.resolve("libx.so");
    assertThat(copy).hasBinaryContent(bytes);
    assertThat(directory.getParent()).isEqualTo(parent);
    Files.setLastModifiedTime(copy, LONG_AGO);

    assertThat(RocksNativeLibrary.extracted(resource, "libx.so", parent)).isEqualTo(directory);
    assertThat(Files.getLastModifiedTime(copy)).as("not written again").isEqualTo(LONG_AGO);
    try (var files = Files.list(directory)) {
      assertThat(files).as("no partial copy left").containsExactly(copy);
    }
  }

  @Test
  void aDamagedCopyIsWrittenAgain() throws IOException {
    byte[] bytes = library();
    URL resource = jarWith("libx.so", bytes);
    Path parent = Files.createDirectory(temp.resolve("cache"));
    Path copy = RocksNativeLibrary.extracted(resource, "libx.so", parent).resolve("libx.so");

    byte[] damaged = bytes.clone();
    damaged[12_345] ^= 1;
    Files.write(copy, damaged);
    RocksNativeLibrary.extracted(resource, "libx.so", parent);
    assertThat(copy).hasBinaryContent(bytes);

    Files.write(copy, new byte[10]);
    RocksNativeLibrary.extracted(resource, "libx.so", parent);
    assertThat(copy).hasBinaryContent(bytes);
  }

  @Test
  void anotherBuildOfTheLibraryGetsADirectoryOfItsOwn() throws IOException {
    Path parent = Files.createDirectory(temp.resolve("cache"));
    Path first = RocksNativeLibrary.extracted(jarWith("libx.so", library()), "libx.so", parent);
    byte[] other = library();
    other[0] ^= 1;
    Path second = RocksNativeLibrary.extracted(jarWith("libx.so", other), "libx.so", parent);
    assertThat(second).isNotEqualTo(first);
    assertThat(second.resolve("libx.so")).hasBinaryContent(other);
  }

  @Test
  void aDirectoryOpenToOthersIsNotUsed() throws IOException {
    byte[] bytes = library();
    URL resource = jarWith("libx.so", bytes);
    Path parent = Files.createDirectory(temp.resolve("cache"));
    Path directory = RocksNativeLibrary.extracted(resource, "libx.so", parent);
    Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> RocksNativeLibrary.extracted(resource, "libx.so", parent))
        .isInstanceOf(IOException.class).hasMessageContaining("not a directory of this user's");
  }

  @Test
  void aResourceOutsideAJarIsLeftToRocksDb() throws IOException {
    Path file = Files.write(temp.resolve("libx.so"), library());
    assertThat(RocksNativeLibrary.extracted(file.toUri().toURL(), "libx.so", temp)).isNull();
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

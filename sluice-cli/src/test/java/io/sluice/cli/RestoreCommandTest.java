package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice restore} on hand-made archives (CLI.md §10.2): what it extracts, and the archives
 * and directories it refuses without writing anything.
 */
class RestoreCommandTest {
  @TempDir Path tmp;

  /** One archive entry: a directory (name ending in /), a file, or a link to {@code target}. */
  private record Entry(String name, String content, byte linkType, String target) {
    static Entry dir(String name) {
      return new Entry(name, null, (byte) 0, null);
    }

    static Entry file(String name, String content) {
      return new Entry(name, content, (byte) 0, null);
    }

    static Entry link(String name, byte linkType, String target) {
      return new Entry(name, null, linkType, target);
    }
  }

  private Path archive(String fileName, Entry... entries) throws IOException {
    Path archive = tmp.resolve(fileName);
    try (OutputStream file = Files.newOutputStream(archive);
        TarArchiveOutputStream tar =
            new TarArchiveOutputStream(new GzipCompressorOutputStream(file))) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      for (Entry entry : entries) {
        TarArchiveEntry tarEntry = entry.target != null
            ? new TarArchiveEntry(entry.name, entry.linkType, true)
            : new TarArchiveEntry(entry.name, true);
        byte[] content = entry.content == null ? new byte[0]
            : entry.content.getBytes(StandardCharsets.UTF_8);
        if (entry.target != null) {
          tarEntry.setLinkName(entry.target);
        } else if (entry.content != null) {
          tarEntry.setSize(content.length);
        }
        tar.putArchiveEntry(tarEntry);
        tar.write(content);
        tar.closeArchiveEntry();
      }
    }
    return archive;
  }

  private Path validArchive() throws IOException {
    return archive("backup.tar.gz",
        Entry.dir("sluice-data/"),
        Entry.dir("sluice-data/data/"),
        Entry.file("sluice-data/data/CURRENT", "MANIFEST-000005\n"),
        Entry.file("sluice-data/data/000009.sst", "table bytes"));
  }

  private List<Path> everythingUnder(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(path -> !path.equals(dir)).sorted().toList();
    }
  }

  @Test
  void extractsTheArchivesSluiceDataIntoTheRootDirectory() throws Exception {
    Path archive = validArchive();
    Path root = tmp.resolve("restored");

    CliRunner.Result result = CliRunner.sluice("restore", "--root-dir", root.toString(),
        archive.toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out()).isEqualTo("Restoring from " + archive + " to " + root + "...\n"
        + "Restore complete.\n");
    assertThat(Files.readString(root.resolve("data/CURRENT"))).isEqualTo("MANIFEST-000005\n");
    assertThat(Files.readString(root.resolve("data/000009.sst"))).isEqualTo("table bytes");
    assertThat(everythingUnder(tmp)).as("nothing besides the archive and the root directory")
        .containsExactlyInAnyOrder(archive, root, root.resolve("data"),
            root.resolve("data/CURRENT"), root.resolve("data/000009.sst"));
  }

  @Test
  void restoresIntoAnEmptyExistingDirectory() throws Exception {
    Path archive = validArchive();
    Path root = Files.createDirectory(tmp.resolve("empty"));

    CliRunner.Result result = CliRunner.sluice("restore", "--root-dir", root.toString(),
        archive.toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(root.resolve("data/CURRENT")).hasContent("MANIFEST-000005");
  }

  @Test
  void refusesARootDirectoryThatIsNotEmpty() throws Exception {
    Path archive = validArchive();
    Path root = Files.createDirectory(tmp.resolve("busy"));
    Files.writeString(root.resolve("keep.txt"), "mine");

    CliRunner.Result result = CliRunner.sluice("restore", "--root-dir", root.toString(),
        archive.toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("Error: " + root + " is not empty; restore into a new "
        + "directory\n");
    assertThat(everythingUnder(tmp)).containsExactlyInAnyOrder(archive, root,
        root.resolve("keep.txt"));
  }

  @Test
  void refusesEntriesThatWouldLandOutsideTheRootDirectory() throws Exception {
    List<String> escapes = List.of("sluice-data/../evil", "sluice-data/data/../../../evil",
        "/tmp/evil", "evil", "../sluice-data/data/evil");
    for (String escape : escapes) {
      Path archive = archive("escape.tar.gz",
          Entry.dir("sluice-data/"),
          Entry.dir("sluice-data/data/"),
          Entry.file("sluice-data/data/CURRENT", "MANIFEST-000005\n"),
          Entry.file(escape, "owned"));
      Path root = tmp.resolve("root");

      CliRunner.Result result = CliRunner.sluice("restore", "--root-dir", root.toString(),
          archive.toString());

      assertThat(result.exitCode()).as("%s: %s", escape, result).isEqualTo(1);
      assertThat(result.err()).as(escape).startsWith("Error: refusing archive entry '");
      assertThat(everythingUnder(tmp)).as("%s: nothing extracted, no leftovers", escape)
          .containsExactly(archive);
      Files.delete(archive);
    }
  }

  @Test
  void refusesLinks() throws Exception {
    List<Entry> links = List.of(
        Entry.link("sluice-data/data/passwd", TarConstants.LF_SYMLINK, "/etc/passwd"),
        Entry.link("sluice-data/data/up", TarConstants.LF_SYMLINK, "../.."),
        Entry.link("sluice-data/data/CURRENT", TarConstants.LF_LINK, "/etc/passwd"));
    for (Entry link : links) {
      Path archive = archive("link.tar.gz", Entry.dir("sluice-data/"),
          Entry.dir("sluice-data/data/"), link);
      Path root = tmp.resolve("root");

      CliRunner.Result result = CliRunner.sluice("restore", "--root-dir", root.toString(),
          archive.toString());

      assertThat(result.exitCode()).as("%s: %s", link, result).isEqualTo(1);
      assertThat(result.err()).as(link.name()).contains("links and special files are never");
      assertThat(everythingUnder(tmp)).as(link.name()).containsExactly(archive);
      Files.delete(archive);
    }
  }

  @Test
  void refusesAnArchiveWithoutADatabase() throws Exception {
    Path archive = archive("other.tar.gz", Entry.dir("sluice-data/"),
        Entry.file("sluice-data/notes.txt", "not a database"));
    Path root = tmp.resolve("root");

    CliRunner.Result result = CliRunner.sluice("restore", "--root-dir", root.toString(),
        archive.toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).isEqualTo("Error: " + archive + " is not a Sluice backup: it has "
        + "no sluice-data/data/CURRENT\n");
    assertThat(everythingUnder(tmp)).containsExactly(archive);
  }

  @Test
  void refusesAFileThatIsNotAnArchive() throws Exception {
    Path archive = Files.writeString(tmp.resolve("notes.tar.gz"), "plain text");
    Path root = tmp.resolve("root");

    CliRunner.Result result = CliRunner.sluice("restore", "--root-dir", root.toString(),
        archive.toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err()).startsWith("Error: cannot read " + archive + ": ");
    assertThat(everythingUnder(tmp)).containsExactly(archive);
  }
}

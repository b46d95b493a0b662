package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The admin API's storage endpoints (CLI.md §9): POST /backup and POST /compact. */
class BackupHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  @TempDir Path tmp;

  @Test
  void backupIsAGzipTarOfACheckpointUnderSluiceData() throws Exception {
    String queue = uniqueName("backup");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(server.enqueueId(queue));
    }

    ServerFixture.Reply reply = server.admin("POST", "/backup");

    assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
    assertThat(reply.contentType()).isEqualTo("application/gzip");
    assertThat(reply.headers().firstValue("content-disposition"))
        .hasValue("attachment; filename=\"backup.tar.gz\"");
    assertThat(reply.headers().firstValue("transfer-encoding")).hasValue("chunked");
    Path extracted = tmp.resolve("extracted");
    List<String> names = extract(reply.body(), extracted);
    assertThat(names).allMatch(name -> name.startsWith("sluice-data/"))
        .contains("sluice-data/", "sluice-data/data/", "sluice-data/data/CURRENT")
        .anyMatch(name -> name.startsWith("sluice-data/data/MANIFEST-"))
        .anyMatch(name -> name.endsWith(".sst"));
    try (RocksJobStore copy = new RocksJobStore(
        new StoreConfig(extracted.resolve("sluice-data/data"), 8L << 20))) {
      for (String id : ids) {
        assertThat(copy.readJob(JobId.parseOrNull(id))).as(id).isNotNull();
      }
    }
    assertThat(checkpointsIn(server.rootDir())).as("temporary checkpoints left").isEmpty();
  }

  @Test
  void compactAnswers204WhenDone() {
    ServerFixture.Reply reply = server.admin("POST", "/compact");

    assertThat(reply.status()).as(reply.toString()).isEqualTo(204);
    assertThat(reply.body()).isEmpty();
  }

  @Test
  void otherMethodsAre405AndOtherAdminPaths404() {
    assertThat(server.admin("GET", "/backup").status()).isEqualTo(405);
    assertThat(server.admin("GET", "/compact").status()).isEqualTo(405);
    assertThat(server.admin("POST", "/restore").status()).isEqualTo(404);
    assertThat(server.admin("POST", "/backup/now").status()).isEqualTo(404);
    assertThat(server.admin("GET", "/health").status()).isEqualTo(200);
  }

  @Test
  void thePrimaryListenerHasNoMaintenanceEndpoints() {
    assertThat(server.post("/backup").status()).isEqualTo(404);
    assertThat(server.post("/compact").status()).isEqualTo(404);
  }

  @Test
  void startingDeletesTheCheckpointsOfBackupsACrashInterrupted() throws Exception {
    Path root = tmp.resolve("root");
    Path leftover = Files.createDirectories(root.resolve("backup-tmp-1234/data"));
    Files.writeString(leftover.resolve("000009.sst"), "table bytes");
    Files.createDirectories(root.resolve("backup-tmp-5678"));
    Path unrelated = Files.createDirectories(root.resolve("keep-me"));

    try (ServerFixture restarted = ServerFixture.start(root)) {
      assertThat(checkpointsIn(root)).isEmpty();
      assertThat(unrelated).isDirectory();
      assertThat(restarted.admin("POST", "/backup").status()).isEqualTo(200);
    }
  }

  private static List<Path> checkpointsIn(Path root) throws IOException {
    try (Stream<Path> entries = Files.list(root)) {
      return entries.filter(path -> path.getFileName().toString().startsWith("backup-tmp-"))
          .toList();
    }
  }

  /** Writes the archive's files under {@code dir}; returns every entry name in order. */
  private static List<String> extract(byte[] archive, Path dir) throws IOException {
    List<String> names = new ArrayList<>();
    try (TarArchiveInputStream tar = new TarArchiveInputStream(
        new GzipCompressorInputStream(new ByteArrayInputStream(archive)))) {
      for (TarArchiveEntry entry = tar.getNextEntry(); entry != null;
          entry = tar.getNextEntry()) {
        names.add(entry.getName());
        Path target = dir.resolve(entry.getName());
        if (entry.isDirectory()) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(tar, target);
        }
      }
    }
    return names;
  }
}

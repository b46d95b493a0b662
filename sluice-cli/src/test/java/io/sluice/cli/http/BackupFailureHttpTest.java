package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.ApiConfig;
import io.sluice.api.ApiServer;
import io.sluice.api.MaintenanceConfig;
import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.EngineLoop;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.store.StorageMaintenance;
import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup that fails before any byte of the archive is sent answers {@code 500 backup failed}
 * (CLI.md §9), rather than a dropped connection, and leaves no scratch directory behind.
 */
class BackupFailureHttpTest {
  @TempDir Path root;

  @Test
  void aBackupThatFailsBeforeItsFirstByteAnswers500() throws Exception {
    // A checkpoint whose only file is a dangling link: reading it fails at the first entry.
    StorageMaintenance broken = new StorageMaintenance() {
      @Override
      public void checkpoint(Path dir) {
        try {
          Files.createDirectories(dir);
          Files.createSymbolicLink(dir.resolve("CURRENT"), dir.resolve("missing"));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }

      @Override
      public void compact() {}
    };
    try (RocksJobStore store = new RocksJobStore(new StoreConfig(root.resolve("data"), 8L << 20));
        EngineLoop loop = new EngineLoop(new Engine(EngineConfig.defaults()), store,
            Clock.systemUTC(), new EngineLoop.CommitModes(false, false))) {
      loop.start();
      ApiServer api = new ApiServer(
          new ApiConfig("127.0.0.1", 0, true, "127.0.0.1", 0, 1000, 1), loop, store, broken,
          new MaintenanceConfig(root, 0), Clock.systemUTC(), new JobIdGenerator());
      try {
        api.start();
        HttpResponse<String> reply = HttpClient.newHttpClient().send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.adminPort() + "/backup"))
                .timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.noBody()).build(),
            HttpResponse.BodyHandlers.ofString());

        assertThat(reply.statusCode()).isEqualTo(500);
        assertThat(reply.body()).isEqualTo("backup failed");
      } finally {
        api.close();
      }
    }
    try (var left = Files.list(root)) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .noneMatch(name -> name.startsWith("backup-tmp-"));
    }
  }
}

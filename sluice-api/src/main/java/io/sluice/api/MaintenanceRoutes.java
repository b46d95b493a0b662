package io.sluice.api;

import io.sluice.api.http.Exchange;
import io.sluice.api.http.ResponseOutputStream;
import io.sluice.api.http.Router;
import io.sluice.engine.store.StorageMaintenance;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API's storage endpoints (CLI.md §9). {@code POST /backup} takes a checkpoint and
 * streams it as a gzip-compressed tar; {@code POST /compact} runs a full compaction and answers
 * when it has finished. The checkpoint and the archive are made on {@code sluice-backup} worker
 * threads, the compaction on the {@link Compactor}'s; event loops only start them and answer.
 *
 * <p>A checkpoint lives in a {@value #SCRATCH_PREFIX}{@code <random>} directory under the scratch
 * directory, deleted once its response has ended, failed or lost its client. Those a crash left
 * behind are deleted at start-up, before any backup can run.
 */
final class MaintenanceRoutes {
  static final String SCRATCH_PREFIX = "backup-tmp-";
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceRoutes.class);
  private static final Set<String> NO_PARAMS = Set.of();
  /** Concurrent backups; more wait for a thread. */
  private static final int BACKUP_THREADS = 2;
  /** A client that reads nothing for this long loses its backup. */
  private static final long STALL_TIMEOUT_MS = TimeUnit.MINUTES.toMillis(5);

  private final StorageMaintenance storage;
  private final Path scratchDir;
  private final Compactor compactor;
  private final WorkerExecutor workers;

  MaintenanceRoutes(Vertx vertx, StorageMaintenance storage, Path scratchDir,
      Compactor compactor) {
    this.storage = storage;
    this.scratchDir = scratchDir;
    this.compactor = compactor;
    // A backup of a large store streams for long: no blocked-thread warnings for it.
    this.workers = vertx.createSharedWorkerExecutor("sluice-backup", BACKUP_THREADS, 1,
        TimeUnit.DAYS);
    deleteLeftovers();
  }

  void register(Router router) {
    router
        .add(HttpMethod.POST, "/backup", (ex, p) -> backup(ex))
        .add(HttpMethod.POST, "/compact", (ex, p) -> compact(ex));
  }

  private void backup(Exchange ex) {
    ex.query(NO_PARAMS);
    HttpServerResponse response = ex.request().response();
    Context context = Vertx.currentContext();
    long startedNanos = System.nanoTime();
    workers.executeBlocking(this::checkpoint, false).onComplete(checkpoint -> {
      if (checkpoint.failed()) {
        LOG.error("backup failed: could not take a checkpoint", checkpoint.cause());
        ResponseOutputStream.plainText(response, 500, "backup failed");
        return;
      }
      Path dir = checkpoint.result();
      ResponseOutputStream body;
      try {
        response.setStatusCode(200)
            .putHeader("Content-Type", "application/gzip")
            .putHeader("Content-Disposition", "attachment; filename=\"backup.tar.gz\"");
        body = new ResponseOutputStream(context, response, STALL_TIMEOUT_MS);
      } catch (RuntimeException e) {
        LOG.warn("backup not sent: {}", e.toString());
        workers.executeBlocking(() -> deleteTree(dir), false);
        return;
      }
      workers.executeBlocking(() -> send(dir, body, startedNanos), false);
    });
  }

  /** A new checkpoint in a fresh scratch directory, as {@code <scratch>/data}. */
  private Path checkpoint() throws IOException {
    Path dir = Files.createDirectory(scratchDir.resolve(SCRATCH_PREFIX + UUID.randomUUID()));
    try {
      storage.checkpoint(dir.resolve("data"));
      return dir;
    } catch (RuntimeException e) {
      deleteTree(dir);
      throw e;
    }
  }

  private Void send(Path dir, ResponseOutputStream body, long startedNanos) {
    boolean complete = false;
    try {
      BackupArchive.write(dir, body);
      body.close();
      complete = true;
      LOG.info("backup sent: {} bytes in {} ms", body.written(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
    } catch (IOException | RuntimeException e) {
      LOG.warn("backup aborted after {} bytes: {}", body.written(), e.toString());
    } finally {
      if (!complete) {
        body.fail(500, "backup failed");
      }
      deleteTree(dir);
    }
    return null;
  }

  private void compact(Exchange ex) {
    ex.query(NO_PARAMS);
    HttpServerResponse response = ex.request().response();
    Future.fromCompletionStage(compactor.request("admin request"), Vertx.currentContext())
        .onComplete(done -> {
          if (done.succeeded()) {
            ex.noContent();
          } else {
            ResponseOutputStream.plainText(response, 500, "compaction failed");
          }
        });
  }

  private void deleteLeftovers() {
    try (DirectoryStream<Path> leftovers =
        Files.newDirectoryStream(scratchDir, SCRATCH_PREFIX + "*")) {
      for (Path leftover : leftovers) {
        LOG.info("deleting {}, the checkpoint of a backup that did not finish", leftover);
        deleteTree(leftover);
      }
    } catch (IOException e) {
      LOG.warn("could not look for unfinished backups in {}: {}", scratchDir, e.toString());
    }
  }

  /** Deletes {@code dir} and everything in it; returns null, for use as a blocking task. */
  private static Void deleteTree(Path dir) {
    try {
      FileTrees.delete(dir);
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", dir, e.toString());
    }
    return null;
  }
}

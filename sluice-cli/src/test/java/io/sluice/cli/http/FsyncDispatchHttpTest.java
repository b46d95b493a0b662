package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.api.ApiConfig;
import io.sluice.api.ApiServer;
import io.sluice.api.MaintenanceConfig;
import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.EngineLoop;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.ForwardingJobStore;
import io.sluice.engine.store.JobStore;
import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@code --enqueue-commit-mode fsync}, a job reaches a worker only once its enqueue is
 * durable: while the fsync is held back (a store wrapper stands in for a slow disk), neither the
 * worker's stream nor the producer's response sees the job; once it completes, both do.
 */
class FsyncDispatchHttpTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path root;

  @Test
  void aJobEnqueuedWithFsyncReachesNoWorkerBeforeItsWriteIsSynced() throws Exception {
    try (RocksJobStore rocks = new RocksJobStore(new StoreConfig(root.resolve("data"), 8L << 20));
        HeldSyncStore store = new HeldSyncStore(rocks);
        EngineLoop loop = new EngineLoop(new Engine(EngineConfig.defaults()), store,
            Clock.systemUTC(), new EngineLoop.CommitModes(true, false))) {
      loop.start();
      ApiServer api = new ApiServer(new ApiConfig("127.0.0.1", 0, false, "127.0.0.1", 0, 200, 1),
          loop, store, rocks, new MaintenanceConfig(root, 0), Clock.systemUTC(),
          new JobIdGenerator());
      try {
        api.start();
        try (WorkerStream worker = WorkerStream.open(api.port(),
            "/jobs/take?queue=durable&prefetch=1", null)) {
          assertThat(worker.status()).isEqualTo(200);

          CompletableFuture<HttpResponse<String>> enqueued = HttpClient.newHttpClient().sendAsync(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + "/jobs"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(
                      "{\"type\":\"t\",\"queue\":\"durable\",\"payload\":{}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
          assertThat(store.syncStarted.await(10, TimeUnit.SECONDS)).isTrue();

          worker.assertNoJobWithin(Duration.ofMillis(500));
          assertThat(enqueued).as("the producer's answer waits for the fsync too").isNotDone();

          store.releaseSync.countDown();
          String id = JSON.readTree(enqueued.get(10, TimeUnit.SECONDS).body()).get("id").asText();
          assertThat(worker.nextJob(Duration.ofSeconds(10)).get("id").asText()).isEqualTo(id);
        }
      } finally {
        store.releaseSync.countDown();
        api.close();
      }
    }
  }

  /** Delegates to the real store; a synced commit waits until the test releases it. */
  private static final class HeldSyncStore extends ForwardingJobStore {
    final CountDownLatch syncStarted = new CountDownLatch(1);
    final CountDownLatch releaseSync = new CountDownLatch(1);

    HeldSyncStore(JobStore store) {
      super(store);
    }

    @Override
    public void commit(CommitBatch batch) {
      if (batch.sync()) {
        syncStarted.countDown();
        try {
          if (!releaseSync.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never released the fsync");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      super.commit(batch);
    }
  }
}

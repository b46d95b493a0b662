package io.sluice.cli;

import io.sluice.api.ApiConfig;
import io.sluice.api.ApiServer;
import io.sluice.api.ClusterView;
import io.sluice.api.MaintenanceConfig;
import io.sluice.api.metrics.ServerMetrics;
import io.sluice.api.wire.JqBatchExpressions;
import io.sluice.engine.Engine;
import io.sluice.engine.RecoveryReport;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.EngineLoop;
import io.sluice.engine.EngineObserver;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.store.JobStore;
import io.sluice.store.rocks.RocksJobStore;
import io.sluice.store.rocks.StoreConfig;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wires store, engine and listeners in start-up order (CLI.md §2.3) and takes them down in
 * reverse on {@link #close}: listeners first, so no new work arrives, then the engine (its
 * streams' jobs requeued), then the store.
 */
public final class SluiceServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceServer.class);

  private final RocksJobStore store;
  private final EngineLoop loop;
  private final ApiServer api;

  private final boolean ownsStore;

  private SluiceServer(RocksJobStore store, EngineLoop loop, ApiServer api, boolean ownsStore) {
    this.store = store;
    this.loop = loop;
    this.api = api;
    this.ownsStore = ownsStore;
  }

  public static SluiceServer start(StoreConfig storeConfig, EngineConfig engineConfig,
      ApiConfig apiConfig, EngineLoop.CommitModes commitModes, InstantSource clock) {
    return start(storeConfig, engineConfig, apiConfig, commitModes,
        EngineLoop.CommitLimits.DEFAULTS, clock);
  }

  public static SluiceServer start(StoreConfig storeConfig, EngineConfig engineConfig,
      ApiConfig apiConfig, EngineLoop.CommitModes commitModes,
      EngineLoop.CommitLimits commitLimits, InstantSource clock) {
    long openStartedNanos = System.nanoTime();
    RocksJobStore store = new RocksJobStore(storeConfig);
    try {
      return startOn(store, store, true, storeConfig, engineConfig, apiConfig, commitModes,
          commitLimits, clock, null, openStartedNanos);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  /**
   * Recovers an engine from {@code store} and serves it; the engine commits through
   * {@code journal} (the store itself, or the Raft log of a cluster's leader). The store stays
   * open on {@link #close} unless {@code ownsStore}; {@code cluster} (or null) is shown on
   * {@code GET /cluster}.
   */
  static SluiceServer startOn(RocksJobStore store, JobStore journal, boolean ownsStore,
      StoreConfig storeConfig, EngineConfig engineConfig, ApiConfig apiConfig,
      EngineLoop.CommitModes commitModes, EngineLoop.CommitLimits commitLimits,
      InstantSource clock, ClusterView cluster, long openStartedNanos) {
    EngineLoop loop = null;
    try {
      JobIdGenerator jobIds = new JobIdGenerator();
      Engine engine = new Engine(engineConfig, JqBatchExpressions.SHARED, jobIds,
          ZoneId.systemDefault());
      long storeOpenedMs = millisSince(openStartedNanos);
      RecoveryReport recovered = engine.recoverFrom(store, clock.millis());
      LOG.info("recovered {} stored jobs in {} ms (store opened, budgets and crons read in {} ms;"
          + " jobs read in {} ms)",
          recovered.jobs(), millisSince(openStartedNanos),
          storeOpenedMs + recovered.budgetsAndCronsMs(),
          recovered.jobsMs());
      // Wired before the loop starts (the engine is still this thread's), so no cron fire of
      // the first turn goes uncounted.
      ServerMetrics metrics = new ServerMetrics();
      EngineObserver counting =
          metrics.watchEngine(engine.queueCounts(), engine.budgetStates(), clock);
      engine.observe(OldGeneration.filledUpward()
          .map(old -> EngineObserver.both(counting,
              new DrainedBacklogCompactor(engine::unfinishedJobCount, engine::activeJobCount, old,
                  DrainedBacklogCompactor.ownThreads())))
          .orElse(counting));
      metrics.watchStorage(store::storedBytes);
      loop = new EngineLoop(engine, journal, clock, commitModes, commitLimits);
      loop.start();
      // Backup checkpoints go beside the data directory, on its file system, to be hard links.
      MaintenanceConfig maintenance = new MaintenanceConfig(
          storeConfig.dataDir().toAbsolutePath().getParent(), storeConfig.autoCompactThreshold());
      ApiServer api = new ApiServer(apiConfig, loop, store, store, maintenance, clock, jobIds,
          metrics);
      if (cluster != null) {
        api.serveCluster(cluster);
      }
      try {
        api.start();
      } catch (RuntimeException e) {
        api.close();
        throw e;
      }
      return new SluiceServer(store, loop, api, ownsStore);
    } catch (RuntimeException e) {
      if (loop != null) {
        loop.close();
      }
      throw e;
    }
  }

  private static long millisSince(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1_000_000;
  }

  public int port() {
    return api.port();
  }

  public int adminPort() {
    return api.adminPort();
  }

  public String scheme(boolean adminListener) {
    return api.scheme(adminListener);
  }

  /**
   * Runs one engine turn now, without waiting for the engine's next deadline; completes with the
   * clock time the turn ran at once the turn is durable. For tests that move the server's clock,
   * since the engine only reads the clock when it wakes.
   */
  public CompletableFuture<Long> runEngineTurn() {
    return loop.submit((engine, nowMs) -> nowMs);
  }

  @Override
  public void close() {
    api.close();
    try {
      loop.submit((engine, nowMs) -> {
        engine.closeAllSessions(nowMs);
        return null;
      }).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      // A wedged engine must not hold shutdown forever; recovery requeues what was in flight.
      LOG.warn("engine did not close its streams cleanly: {}", e.toString());
    }
    loop.close();
    if (ownsStore) {
      store.close();
    }
  }

  /**
   * Stops serving without writing anything: for a leader that lost its term, whose commits the
   * log no longer takes. The next leader requeues the jobs that were in flight here.
   */
  void abandon() {
    api.close();
    loop.close();
  }
}

package io.sluice.cli;

import static io.sluice.cli.ServeOptionValues.integer;
import static io.sluice.cli.ServeOptionValues.oneOf;

import io.sluice.api.ApiConfig;
import io.sluice.api.TlsSettings;
import io.sluice.cluster.ClusterConfig;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.EngineLoop;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.store.rocks.StoreConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/** {@code sluice serve}: runs the server until SIGTERM or SIGINT (CLI.md §2). */
@Command(name = "serve", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "Run the Sluice server.")
public final class ServeCommand implements Callable<Integer> {
  @Option(names = "--root-dir", defaultValue = "${env:SLUICE_ROOT_DIR:-./sluice-data}",
      description = "Root directory for all persistent state (default: ${DEFAULT-VALUE}).")
  String rootDir;

  @Option(names = "--host", defaultValue = "${env:SLUICE_HOST:-127.0.0.1}",
      description = "Primary API bind address.")
  String host;

  @Option(names = "--port", defaultValue = "${env:SLUICE_PORT:-7890}",
      description = "Primary API port.")
  String port;

  @Option(names = "--admin-host", defaultValue = "${env:SLUICE_ADMIN_HOST:-127.0.0.1}",
      description = "Admin API bind address.")
  String adminHost;

  @Option(names = "--admin-port", defaultValue = "${env:SLUICE_ADMIN_PORT:-8901}",
      description = "Admin API port.")
  String adminPort;

  @Option(names = "--no-admin", description = "Do not start the admin listener (SLUICE_NO_ADMIN).")
  boolean noAdmin;

  @Option(names = "--heartbeat-interval",
      defaultValue = "${env:SLUICE_HEARTBEAT_INTERVAL:-3s}",
      description = "Idle time before a take stream gets a heartbeat.")
  String heartbeatInterval;

  @Option(names = {"-l", "--global-in-flight-limit"},
      defaultValue = "${env:SLUICE_GLOBAL_IN_FLIGHT_LIMIT:-1024}",
      description = "Most jobs in flight across all connections; 0 = unlimited.")
  String globalInFlightLimit;

  @Option(names = "--default-retry-limit", defaultValue = "${env:SLUICE_DEFAULT_RETRY_LIMIT:-25}",
      description = "Retry limit of jobs without their own.")
  String defaultRetryLimit;

  @Option(names = "--default-backoff-base",
      defaultValue = "${env:SLUICE_DEFAULT_BACKOFF_BASE:-15s}", description = "Backoff base B.")
  String defaultBackoffBase;

  @Option(names = "--default-backoff-exponent",
      defaultValue = "${env:SLUICE_DEFAULT_BACKOFF_EXPONENT:-4}",
      description = "Backoff exponent E.")
  String defaultBackoffExponent;

  @Option(names = "--default-backoff-jitter",
      defaultValue = "${env:SLUICE_DEFAULT_BACKOFF_JITTER:-30s}",
      description = "Backoff jitter J per attempt.")
  String defaultBackoffJitter;

  @Option(names = "--default-completed-job-retention",
      defaultValue = "${env:SLUICE_DEFAULT_COMPLETED_JOB_RETENTION:-0}",
      description = "Retention of completed jobs (0 = delete on completion).")
  String defaultCompletedRetention;

  @Option(names = "--default-dead-job-retention",
      defaultValue = "${env:SLUICE_DEFAULT_DEAD_JOB_RETENTION:-7d}",
      description = "Retention of dead jobs (0 = delete on death).")
  String defaultDeadRetention;

  @Option(names = "--reaper-check-interval",
      defaultValue = "${env:SLUICE_REAPER_CHECK_INTERVAL:-30s}",
      description = "How often expired terminal jobs are purged.")
  String reaperInterval;

  @Option(names = "--max-budgets", defaultValue = "${env:SLUICE_MAX_BUDGETS:-8192}",
      description = "Most budgets the server holds (at least 1).")
  String maxBudgets;

  @Option(names = "--event-loops", defaultValue = "${env:SLUICE_EVENT_LOOPS:-}",
      description = "Threads serving HTTP connections (default: one less than the processors,"
          + " at least 1; the engine has a thread of its own).")
  String eventLoops;

  @Option(names = "--default-commit-mode",
      defaultValue = "${env:SLUICE_DEFAULT_COMMIT_MODE:-buffered}",
      description = "buffered or fsync, for all writes.")
  String defaultCommitMode;

  @Option(names = "--enqueue-commit-mode", defaultValue = "${env:SLUICE_ENQUEUE_COMMIT_MODE:-}",
      description = "buffered or fsync, for enqueues (default: the default commit mode).")
  String enqueueCommitMode;

  @Option(names = "--cache-size", defaultValue = "${env:SLUICE_CACHE_SIZE:-256MB}",
      description = "Storage read cache size.")
  String cacheSize;

  @Option(names = "--enqueue-batch-size",
      defaultValue = "${env:SLUICE_ENQUEUE_BATCH_SIZE:-1000}",
      description = "Most enqueue requests coalesced into one storage commit (a bulk request"
          + " counts as one).")
  String enqueueBatchSize;

  @Option(names = "--complete-batch-size",
      defaultValue = "${env:SLUICE_COMPLETE_BATCH_SIZE:-1000}",
      description = "Most success acknowledgements coalesced into one storage commit (a bulk"
          + " acknowledgement counts as one).")
  String completeBatchSize;

  @Mixin ServeTlsOptions tls = new ServeTlsOptions();

  @Mixin ServeHttpOptions http = new ServeHttpOptions();

  @Option(names = "--warm-up-jobs", defaultValue = "${env:SLUICE_WARM_UP_JOBS:-3000}",
      description = "Jobs run through a throwaway in-process server before opening the ports,"
          + " so the first requests meet compiled code; 0 skips it.")
  String warmUpJobs;

  @Option(names = "--cluster-id", defaultValue = "${env:SLUICE_CLUSTER_ID:-}",
      description = "Run as a node of this replicated cluster (docs/cluster.md); needs --node-id"
          + " and --peers (SLUICE_CLUSTER_ID).")
  String clusterId;

  @Option(names = "--node-id", defaultValue = "${env:SLUICE_NODE_ID:-}",
      description = "This node's id among --peers (SLUICE_NODE_ID).")
  String nodeId;

  @Option(names = "--peers", defaultValue = "${env:SLUICE_PEERS:-}",
      description = "Every node of the cluster as id=host:port of its replication listener,"
          + " comma-separated, this node included (SLUICE_PEERS).")
  String peers;

  @Option(names = "--election-timeout", defaultValue = "${env:SLUICE_ELECTION_TIMEOUT:-500ms}",
      description = "How long a follower waits to hear from its leader before it stands for"
          + " election; it waits between this and twice this (SLUICE_ELECTION_TIMEOUT).")
  String electionTimeout;

  @Mixin ClusterTlsOptions clusterTls = new ClusterTlsOptions();

  @Option(names = "--snapshot-every", defaultValue = "${env:SLUICE_SNAPSHOT_EVERY:-10000}",
      description = "A cluster node snapshots its store every this many log entries, and the"
          + " log is truncated behind the snapshot (SLUICE_SNAPSHOT_EVERY).")
  String snapshotEvery;

  @Option(names = "--log-level", defaultValue = "${env:SLUICE_LOG_LEVEL:-info}",
      description = "trace, debug, info, warn or error (Sluice's own loggers).")
  String logLevel;

  @Option(names = "--log-format", defaultValue = "${env:SLUICE_LOG_FORMAT:-}",
      description = "pretty, compact or json.")
  String logFormat;

  @Mixin LogFileOptions logFiles = new LogFileOptions();

  @Override
  public Integer call() throws Exception {
    ServerSettings settings = settings();
    PortCheck.free(settings.api());
    LoggingSetup.configure(logFormat, logLevel.toLowerCase(Locale.ROOT), logFiles.config(),
        Clock.systemUTC());
    if (System.console() != null) {
      System.err.println("Sluice " + Main.PRODUCT_VERSION);
    }
    CountDownLatch stop = new CountDownLatch(1);
    if (settings.warmUpJobs() > 0) {
      // Caught during the warm-up, so that it ends early and cleans up after itself.
      SignalHandler previousTerm = Signal.handle(new Signal("TERM"), signal -> stop.countDown());
      SignalHandler previousInt = Signal.handle(new Signal("INT"), signal -> stop.countDown());
      WarmUp.run(settings.engine(), settings.warmUpJobs(), () -> stop.getCount() == 0);
      if (stop.getCount() == 0) {
        System.err.println("Stopped during the warm-up.");
        return 0;
      }
      // A stop while stored jobs are recovered ends the process at once, as without a warm-up.
      Signal.handle(new Signal("TERM"), previousTerm);
      Signal.handle(new Signal("INT"), previousInt);
      // Objects the warm-up left alive in the young generation would be copied by the first
      // collection once the port is open, making it slower than the ones after it (16 ms at 500
      // jobs/s against 3 to 5 ms): collected now, that pause is paid during start-up (20 ms).
      System.gc();
    }
    if (settings.cluster() != null) {
      return serveClusterNode(settings, stop);
    }
    SluiceServer server;
    try {
      server = SluiceServer.start(settings.store(), settings.engine(), settings.api(),
          settings.commitModes(), settings.commitLimits(), Clock.systemUTC());
    } catch (RuntimeException e) {
      throw new StartupException(e.getMessage());
    }
    if (System.console() != null) {
      if (settings.api().adminEnabled()) {
        System.err.println("Listening on " + server.scheme(true) + "://" + adminHost + ":"
            + server.adminPort() + " (admin)");
      }
      System.err.println("Listening on " + server.scheme(false) + "://" + host + ":"
          + server.port() + " (primary)");
    }
    Signal.handle(new Signal("TERM"), signal -> stop.countDown());
    Signal.handle(new Signal("INT"), signal -> stop.countDown());
    stop.await();
    server.close();
    System.err.println("Server stopped.");
    return 0;
  }

  private int serveClusterNode(ServerSettings settings, CountDownLatch stop)
      throws InterruptedException {
    ClusterServer server;
    try {
      server = ClusterServer.start(settings.cluster(), settings.store(), settings.engine(),
          settings.api(), settings.commitLimits(), Clock.systemUTC());
    } catch (RuntimeException e) {
      throw new StartupException(e.getMessage());
    }
    if (System.console() != null) {
      System.err.println("Node " + settings.cluster().nodeId() + " of cluster "
          + settings.cluster().clusterId() + " (replication on "
          + settings.cluster().self().address() + ")");
    }
    Signal.handle(new Signal("TERM"), signal -> stop.countDown());
    Signal.handle(new Signal("INT"), signal -> stop.countDown());
    stop.await();
    server.close();
    System.err.println("Server stopped.");
    return 0;
  }

  /** Validates every option before anything is opened or bound. */
  ServerSettings settings() {
    Path root = Path.of(rootDir);
    try {
      Files.createDirectories(root);
    } catch (Exception e) {
      throw new StartupException("unusable root directory " + root + ": " + e.getMessage());
    }
    if (!Files.isDirectory(root) || !Files.isWritable(root)) {
      throw new StartupException("unusable root directory " + root + ": not a writable directory");
    }
    boolean syncOthers = commitMode(defaultCommitMode, "--default-commit-mode");
    boolean syncEnqueues = enqueueCommitMode == null || enqueueCommitMode.isEmpty()
        ? syncOthers
        : commitMode(enqueueCommitMode, "--enqueue-commit-mode");
    oneOf(logLevel.toLowerCase(Locale.ROOT), "--log-level",
        "trace", "debug", "info", "warn", "error");
    if (logFormat != null && !logFormat.isEmpty()) {
      oneOf(logFormat, "--log-format", "pretty", "compact", "json");
    }
    logFiles.validate(root);
    try {
      BackoffPolicy backoff = new BackoffPolicy(
          Durations.parseMs(defaultBackoffBase, "--default-backoff-base"),
          parseExponent(defaultBackoffExponent),
          Durations.parseMs(defaultBackoffJitter, "--default-backoff-jitter"));
      EngineConfig engine = new EngineConfig(
          (int) Math.min(Integer.MAX_VALUE,
              integer(defaultRetryLimit, "--default-retry-limit", 0, 0xFFFFFFFFL)),
          backoff,
          Durations.parseMs(defaultCompletedRetention, "--default-completed-job-retention"),
          Durations.parseMs(defaultDeadRetention, "--default-dead-job-retention"),
          (int) integer(globalInFlightLimit, "--global-in-flight-limit", 0, Integer.MAX_VALUE),
          Math.max(1, Durations.parseMs(reaperInterval, "--reaper-check-interval")),
          EngineConfig.DEFAULT_SCHEDULER_BATCH_SIZE,
          EngineConfig.DEFAULT_PAYLOAD_CACHE_BYTES,
          (int) integer(maxBudgets, "--max-budgets", 1, Integer.MAX_VALUE));
      boolean adminEnabled = !(noAdmin || EnvFlags.isSet("SLUICE_NO_ADMIN"));
      ApiConfig api = new ApiConfig(host, (int) integer(port, "--port", 0, 65535),
          adminEnabled, adminHost, (int) integer(adminPort, "--admin-port", 0, 65535),
          Math.max(1, Durations.parseMs(heartbeatInterval, "--heartbeat-interval")),
          eventLoops == null || eventLoops.isEmpty() ? defaultEventLoops()
              : (int) integer(eventLoops, "--event-loops", 1, 1024),
          tls.primary(), adminTls(adminEnabled), http.limits());
      EngineLoop.CommitLimits commitLimits = new EngineLoop.CommitLimits(
          (int) integer(enqueueBatchSize, "--enqueue-batch-size", 1, Integer.MAX_VALUE),
          (int) integer(completeBatchSize, "--complete-batch-size", 1, Integer.MAX_VALUE));
      StoreConfig store = new StoreConfig(root.resolve("data"),
          Sizes.parseBytes(cacheSize, "--cache-size"), autoCompactThreshold());
      return new ServerSettings(store, engine, api,
          new EngineLoop.CommitModes(syncEnqueues, syncOthers), commitLimits,
          (int) integer(warmUpJobs, "--warm-up-jobs", 0, 10_000_000),
          cluster(root, syncEnqueues || syncOthers));
    } catch (IllegalArgumentException e) {
      throw new StartupException(e.getMessage());
    }
  }

  /**
   * One event loop fewer than the processors: the engine thread keeps one busy under load, and on
   * a small machine a loop that never waits for another saves a thread switch per response
   * (docs/decisions.md, "Event loops").
   */
  static int defaultEventLoops() {
    return Math.max(1, Runtime.getRuntime().availableProcessors() - 1);
  }

  /** The admin TLS flags are checked even with {@code --no-admin}, then unused. */
  private TlsSettings adminTls(boolean adminEnabled) {
    TlsSettings admin = tls.admin();
    return adminEnabled ? admin : null;
  }

  private static boolean commitMode(String value, String option) {
    oneOf(value, option, "buffered", "fsync");
    return value.equals("fsync");
  }

  private static float parseExponent(String value) {
    try {
      float exponent = Float.parseFloat(value.trim());
      if (Float.isFinite(exponent) && exponent >= 0) {
        return exponent;
      }
    } catch (NumberFormatException e) {
      // Reported below.
    }
    throw new StartupException("invalid value for --default-backoff-exponent: '" + value
        + "' (expected a non-negative number)");
  }

  /** Environment-only tuning (CLI.md §2.1); unset or blank means the default. */
  private static long autoCompactThreshold() {
    String value = System.getenv("SLUICE_AUTO_COMPACT_THRESHOLD");
    return value == null || value.isBlank()
        ? StoreConfig.DEFAULT_AUTO_COMPACT_THRESHOLD
        : integer(value, "SLUICE_AUTO_COMPACT_THRESHOLD", 0, Integer.MAX_VALUE);
  }

  /**
   * The cluster this node belongs to, or null for a single node. The Raft log is fsynced when
   * either commit mode is {@code fsync} (docs/decisions.md, "Commit modes in a cluster").
   */
  private ClusterConfig cluster(Path root, boolean syncLog) {
    boolean any = !blank(clusterId) || !blank(nodeId) || !blank(peers);
    if (!any) {
      if (clusterTls.load() != null) {
        throw new StartupException("--cluster-tls-* apply to a cluster node only (with"
            + " --cluster-id, --node-id and --peers)");
      }
      return null;
    }
    if (blank(clusterId) || blank(nodeId) || blank(peers)) {
      throw new StartupException("a cluster node needs all of --cluster-id, --node-id and"
          + " --peers");
    }
    long electionMs = Durations.parseMs(electionTimeout, "--election-timeout");
    if (electionMs < 50) {
      throw new StartupException("invalid value for --election-timeout: '" + electionTimeout
          + "' (expected at least 50ms)");
    }
    return new ClusterConfig(clusterId.trim(), nodeId.trim(),
        ClusterConfig.parsePeers(peers), root.resolve("raft"), syncLog,
        Duration.ofMillis(electionMs),
        integer(snapshotEvery, "--snapshot-every", 1, Long.MAX_VALUE), clusterTls.load());
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }

  record ServerSettings(StoreConfig store, EngineConfig engine, ApiConfig api,
      EngineLoop.CommitModes commitModes, EngineLoop.CommitLimits commitLimits,
      int warmUpJobs, ClusterConfig cluster) {}

  /** A configuration problem found while the server starts. */
  static final class StartupException extends OperatorException {
    StartupException(String message) {
      super(message);
    }
  }
}

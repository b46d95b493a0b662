package io.sluice.bench.torture;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Command-line options of {@code sluice-torture}, parsed by hand like the bench's ("--name value"
 * or "--name=value", a later occurrence wins).
 *
 * @param serverCommand how to run the server up to (not including) the {@code serve} subcommand
 * @param enqueueCommitMode {@code --enqueue-commit-mode} for the server, or null to inherit
 * @param workDir where root directories and logs go, or null for a fresh temp directory
 */
record TortureOptions(
    List<String> serverCommand,
    int cycles,
    List<String> modes,
    String enqueueCommitMode,
    int minLoadMs,
    int maxLoadMs,
    int producers,
    int maxBulk,
    int workers,
    int prefetch,
    int holdMs,
    int failPercent,
    int maxBacklog,
    int clientThreads,
    long startupTimeoutSec,
    long drainTimeoutSec,
    Path workDir,
    boolean keep,
    long seed) {

  static final List<String> COMMIT_MODES = List.of("buffered", "fsync");

  static final String USAGE = """
      Usage: sluice-torture [options]

      Crash-cycle soak: starts sluice serve on a root directory it keeps, runs producers and
      workers against it, SIGKILLs it after a random stretch of load, restarts it and goes on;
      then drains every job, restarts once more cleanly and checks the client's ledger against
      what the server acknowledged. Exit status 0 only if nothing acknowledged was lost.

      Server:
        --project DIR                 Sluice checkout (default: current directory)
        --server-jar PATH             runnable server jar (default DIR/sluice-cli/target/sluice.jar)
        --mode buffered|fsync|both    --default-commit-mode of the server; both = one run each
                                      (default both)
        --enqueue-commit-mode M       also pass --enqueue-commit-mode M (default: not passed)
        --startup-timeout SEC         wait for /health after each start (default 60)

      Cycles:
        --cycles N                    SIGKILLs per mode (default 100)
        --min-load-ms MS              shortest load before a kill (default 200)
        --max-load-ms MS              longest load before a kill (default 2000)
        --seed N                      seed for the load durations (default: random, printed)
        --drain-timeout SEC           limit for draining every job at the end (default 300)

      Load:
        --producers N                 enqueue lanes, one request at a time each; even lanes
                                      POST /jobs, odd lanes POST /jobs/bulk (default 4)
        --max-bulk N                  jobs per bulk enqueue, 2 to N at random (default 50)
        --max-backlog N               producers pause while more jobs than this are unfinished
                                      (default 5000)
        --workers N                   take streams; even workers ack one by one, odd workers in
                                      bulk (default 4)
        --prefetch N                  prefetch per take stream (default 16)
        --hold-ms MS                  a worker holds each job 1 to MS ms before finishing it
                                      (default 20)
        --fail-percent P              chance that a worker fails a job with retry_at now
                                      instead of acking it, on its first 2 attempts (default 5)
        --client-threads N            client event loops (default 2)

      Files:
        --work-dir DIR                root directories and server logs (default: a new temp
                                      directory, deleted after a clean pass)
        --keep                        keep the work directory after a clean pass too
      """;

  static TortureOptions parse(String[] args) {
    Map<String, String> v = new LinkedHashMap<>();
    v.put("project", ".");
    v.put("server-jar", "");
    v.put("mode", "both");
    v.put("enqueue-commit-mode", "");
    v.put("startup-timeout", "60");
    v.put("cycles", "100");
    v.put("min-load-ms", "200");
    v.put("max-load-ms", "2000");
    v.put("seed", Long.toString(ThreadLocalRandom.current().nextLong()));
    v.put("drain-timeout", "300");
    v.put("producers", "4");
    v.put("max-bulk", "50");
    v.put("max-backlog", "5000");
    v.put("workers", "4");
    v.put("prefetch", "16");
    v.put("hold-ms", "20");
    v.put("fail-percent", "5");
    v.put("client-threads", "2");
    v.put("work-dir", "");
    boolean keep = false;

    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        throw new UsageException(null);
      }
      if (a.equals("--keep")) {
        keep = true;
        continue;
      }
      if (!a.startsWith("--")) {
        throw new UsageException("unexpected argument '" + a + "'");
      }
      int eq = a.indexOf('=');
      String name = eq > 0 ? a.substring(2, eq) : a.substring(2);
      if (!v.containsKey(name)) {
        throw new UsageException("unknown option --" + name);
      }
      if (eq > 0) {
        v.put(name, a.substring(eq + 1));
      } else if (i + 1 < args.length) {
        v.put(name, args[++i]);
      } else {
        throw new UsageException("--" + name + " needs a value");
      }
    }

    String mode = v.get("mode");
    if (!mode.equals("both") && !COMMIT_MODES.contains(mode)) {
      throw new UsageException("--mode must be buffered, fsync or both");
    }
    List<String> modes = mode.equals("both") ? COMMIT_MODES : List.of(mode);
    String enqueueMode = v.get("enqueue-commit-mode");
    if (!enqueueMode.isEmpty() && !COMMIT_MODES.contains(enqueueMode)) {
      throw new UsageException("--enqueue-commit-mode must be buffered or fsync");
    }
    Path project = Path.of(v.get("project")).toAbsolutePath().normalize();
    Path jar = v.get("server-jar").isEmpty()
        ? project.resolve("sluice-cli/target/sluice.jar")
        : Path.of(v.get("server-jar")).toAbsolutePath();
    long seed;
    try {
      seed = Long.parseLong(v.get("seed"));
    } catch (NumberFormatException e) {
      throw new UsageException("--seed must be an integer, got '" + v.get("seed") + "'");
    }
    TortureOptions o = new TortureOptions(
        List.of(javaBinary(), "-jar", jar.toString()),
        positive(v, "cycles"),
        modes,
        enqueueMode.isEmpty() ? null : enqueueMode,
        positive(v, "min-load-ms"),
        positive(v, "max-load-ms"),
        positive(v, "producers"),
        positive(v, "max-bulk"),
        positive(v, "workers"),
        positive(v, "prefetch"),
        positive(v, "hold-ms"),
        nonNegative(v, "fail-percent"),
        positive(v, "max-backlog"),
        positive(v, "client-threads"),
        positive(v, "startup-timeout"),
        positive(v, "drain-timeout"),
        v.get("work-dir").isEmpty() ? null : Path.of(v.get("work-dir")).toAbsolutePath(),
        keep,
        seed);
    if (o.minLoadMs() > o.maxLoadMs()) {
      throw new UsageException("--min-load-ms must not exceed --max-load-ms");
    }
    if (o.maxBulk() < 2) {
      throw new UsageException("--max-bulk must be at least 2");
    }
    if (o.failPercent() > 100) {
      throw new UsageException("--fail-percent must be at most 100");
    }
    return o;
  }

  /** The same options with the server run by {@code command} (up to the subcommand) instead. */
  TortureOptions withServerCommand(List<String> command) {
    return new TortureOptions(List.copyOf(command), cycles, modes, enqueueCommitMode, minLoadMs, maxLoadMs,
        producers, maxBulk, workers, prefetch, holdMs, failPercent, maxBacklog, clientThreads, startupTimeoutSec,
        drainTimeoutSec, workDir, keep, seed);
  }

  /** The {@code serve} command for a run in commit mode {@code mode}, without root dir and listener. */
  List<String> serveCommand(String mode) {
    List<String> cmd = new ArrayList<>(serverCommand);
    cmd.addAll(List.of("serve", "--warm-up-jobs", "0", "--default-commit-mode", mode));
    if (enqueueCommitMode != null) {
      cmd.addAll(List.of("--enqueue-commit-mode", enqueueCommitMode));
    }
    return cmd;
  }

  /** The java binary running this tool, so the server runs on the same JDK. */
  static String javaBinary() {
    return ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private static int nonNegative(Map<String, String> v, String name) {
    int n = integer(v, name);
    if (n < 0) {
      throw new UsageException("--" + name + " must not be negative");
    }
    return n;
  }

  private static int positive(Map<String, String> v, String name) {
    int n = integer(v, name);
    if (n <= 0) {
      throw new UsageException("--" + name + " must be positive");
    }
    return n;
  }

  private static int integer(Map<String, String> v, String name) {
    try {
      return Integer.parseInt(v.get(name).replace("_", ""));
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " must be an integer, got '" + v.get(name) + "'");
    }
  }

  /** Bad command line; a null message means "just print usage". */
  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }
}

package io.sluice.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Sluice server started by the bench for one run: fresh data directory, free loopback ports,
 * health wait, graceful SIGTERM stop and cleanup. Each run gets its own so runs do not inherit
 * each other's data or warmed-up state.
 */
final class ServerProcess implements AutoCloseable {
  /** G1's {@code GC.heap_info} line: "garbage-first heap   total 262144K, used 12345K [...". */
  private static final Pattern HEAP_USED = Pattern.compile("total \\d+K, used (\\d+)K");
  private static final long STOP_WAIT_SEC = 30;

  private final Process process;
  private final Path tempDir;
  private final Path log;
  private final Endpoint endpoint;
  private final Endpoint adminEndpoint;
  private final boolean keepTemp;
  private final Thread shutdownHook;
  private boolean closed;

  private ServerProcess(Process process, Path tempDir, Path log, Endpoint endpoint,
      Endpoint adminEndpoint, boolean keepTemp) {
    this.process = process;
    this.tempDir = tempDir;
    this.log = log;
    this.endpoint = endpoint;
    this.adminEndpoint = adminEndpoint;
    this.keepTemp = keepTemp;
    // An interrupted bench (Ctrl-C) must not leave a server running in the background.
    this.shutdownHook = new Thread(this::stopAndClean, "sluice-bench-server-stopper");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  static ServerProcess start(Path project, long startupTimeoutSec, boolean keepTemp) {
    Path launcher = project.resolve("bin").resolve("sluice");
    if (!Files.isExecutable(launcher)) {
      throw new BenchFailure(launcher + " not found or not executable; pass --project <sluice root> or --url");
    }
    Path tempDir;
    try {
      tempDir = Files.createTempDirectory("sluice-bench-");
      Path rootDir = Files.createDirectory(tempDir.resolve("root"));
      Path log = tempDir.resolve("server.log");
      int[] ports = ServerLaunch.freeLoopbackPorts(2);
      Endpoint endpoint = Endpoint.loopback(ports[0]);
      ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "serve",
          "--root-dir", rootDir.toString(),
          "--host", endpoint.host(),
          "--port", Integer.toString(ports[0]),
          "--admin-port", Integer.toString(ports[1]))
          .directory(project.toFile())
          .redirectErrorStream(true)
          .redirectOutput(log.toFile());
      ServerProcess server = new ServerProcess(pb.start(), tempDir, log, endpoint,
          Endpoint.loopback(ports[1]), keepTemp);
      try {
        ServerLaunch.awaitHealthy(server.process, endpoint, startupTimeoutSec, log);
      } catch (RuntimeException e) {
        server.close();
        throw e;
      }
      return server;
    } catch (IOException e) {
      throw new BenchFailure("could not start " + launcher + ": " + e, e);
    }
  }

  Endpoint endpoint() {
    return endpoint;
  }

  /** The admin listener ({@code /metrics}, {@code /backup}). */
  Endpoint adminEndpoint() {
    return adminEndpoint;
  }

  Path log() {
    return log;
  }

  /**
   * The server JVM's memory. bin/sluice execs java (possibly after a build), so the launched
   * process is the JVM; should the launcher ever stay around instead, the largest descendant is
   * taken to be the JVM.
   */
  ProcStatus.Memory memory() {
    return ProcStatus.read(largestJvm().pid());
  }


  /**
   * Heap the server JVM uses right after a full collection, in KiB, through {@code jcmd}
   * ({@code GC.run}, then {@code GC.heap_info}): what its live objects take, which RSS does not
   * say. -1 when jcmd is missing or its answer cannot be read.
   */
  long heapUsedAfterGcKiB() {
    ProcessHandle jvm = largestJvm();
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    try {
      run(jcmd.toString(), Long.toString(jvm.pid()), "GC.run");
      String info = run(jcmd.toString(), Long.toString(jvm.pid()), "GC.heap_info");
      Matcher used = HEAP_USED.matcher(info);
      return used.find() ? Long.parseLong(used.group(1)) : -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** The launched process or, should the launcher stay around, its largest descendant. */
  private ProcessHandle largestJvm() {
    ProcessHandle best = process.toHandle();
    long bestRss = ProcStatus.read(best.pid()).rssKiB();
    for (ProcessHandle child : (Iterable<ProcessHandle>) process.descendants()::iterator) {
      long rss = ProcStatus.read(child.pid()).rssKiB();
      if (rss > bestRss) {
        best = child;
        bestRss = rss;
      }
    }
    return best;
  }

  private static String run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(60, TimeUnit.SECONDS);
    return out;
  }

  /** CPU time used so far by the server (the launched process and its descendants), or -1. */
  long cpuNanos() {
    long total = cpuNanos(process.toHandle());
    if (total < 0) {
      return -1;
    }
    for (ProcessHandle child : (Iterable<ProcessHandle>) process.descendants()::iterator) {
      total += Math.max(0, cpuNanos(child));
    }
    return total;
  }

  private static long cpuNanos(ProcessHandle handle) {
    return handle.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(-1L);
  }

  /** Last lines of the server's output, for failure reports. */
  String logTail() {
    return ServerLaunch.logTail(log);
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      return; // the hook is running and does the same cleanup
    }
    stopAndClean();
  }

  private void stopAndClean() {
    stopProcessTree();
    if (!keepTemp) {
      deleteRecursively(tempDir);
    }
  }

  /**
   * SIGTERM to the launcher and everything under it (the launcher may run a build or not exec
   * java), then SIGKILL whatever is still alive after a grace period.
   */
  private void stopProcessTree() {
    List<ProcessHandle> tree = new ArrayList<>();
    process.descendants().forEach(tree::add);
    tree.add(process.toHandle());
    for (ProcessHandle p : tree) {
      p.destroy();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STOP_WAIT_SEC);
    for (ProcessHandle p : tree) {
      long left = deadline - System.nanoTime();
      try {
        p.onExit().get(Math.max(0, left), TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        // Timed out or interrupted: fall through to the forced kill below.
      }
    }
    for (ProcessHandle p : tree) {
      if (p.isAlive()) {
        System.err.println("server process " + p.pid() + " ignored SIGTERM for " + STOP_WAIT_SEC + " s; killing it");
        p.destroyForcibly();
      }
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // Best effort: a leftover temp file is not worth failing a benchmark over.
        }
      });
    } catch (IOException e) {
      // Same as above.
    }
  }
}

package io.sluice.bench.torture;

import io.sluice.bench.BenchFailure;
import io.sluice.bench.Endpoint;
import io.sluice.bench.ServerLaunch;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code sluice serve} process that is started, SIGKILLed and started again over the same root
 * directory, one generation per process, each on fresh loopback ports with its own log file. The
 * command runs the server JVM directly (no launcher script in between), so the kill hits the
 * server itself. Driven by the main thread.
 */
final class CrashableServer implements AutoCloseable {

  private static final long KILL_WAIT_SEC = 10;

  private final List<String> command;
  private final Path rootDir;
  private final Path logDir;
  private final long startupTimeoutSec;
  private final Thread shutdownHook;
  private Process process;
  private Path log;

  /**
   * @param command the server command up to and including its {@code serve} options other than
   *     root directory and listeners, e.g. {@code java -jar sluice.jar serve --default-commit-mode fsync}
   */
  CrashableServer(List<String> command, Path rootDir, Path logDir, long startupTimeoutSec) {
    this.command = List.copyOf(command);
    this.rootDir = rootDir;
    this.logDir = logDir;
    this.startupTimeoutSec = startupTimeoutSec;
    // An interrupted run (Ctrl-C) must not leave a server running in the background.
    this.shutdownHook = new Thread(this::killQuietly, "sluice-torture-server-killer");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /** Starts generation {@code gen} and waits until it answers {@code GET /health}. */
  Endpoint start(int gen) {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("server still running");
    }
    try {
      int port = ServerLaunch.freeLoopbackPorts(1)[0];
      Endpoint endpoint = Endpoint.loopback(port);
      List<String> cmd = new ArrayList<>(command);
      cmd.addAll(List.of("--root-dir", rootDir.toString(), "--host", endpoint.host(),
          "--port", Integer.toString(port), "--no-admin"));
      log = logDir.resolve("server-" + gen + ".log");
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
      // The server reads SLUICE_* variables; the caller's must not change what is tested.
      pb.environment().keySet().removeIf(name -> name.startsWith("SLUICE_"));
      process = pb.start();
      ServerLaunch.awaitHealthy(process, endpoint, startupTimeoutSec, log);
      return endpoint;
    } catch (IOException e) {
      throw new BenchFailure("could not start " + String.join(" ", command) + ": " + e, e);
    }
  }

  /** SIGKILL, then waits until the process is gone. */
  void kill() {
    process.destroyForcibly();
    if (!waitFor(KILL_WAIT_SEC)) {
      throw new BenchFailure("server pid " + process.pid() + " still alive " + KILL_WAIT_SEC + " s after SIGKILL");
    }
  }

  /** SIGTERM; returns the exit status, or fails (after a SIGKILL) if it did not exit in time. */
  int stop(long timeoutSec) {
    process.destroy();
    if (!waitFor(timeoutSec)) {
      kill();
      throw new BenchFailure("server did not exit within " + timeoutSec + " s of SIGTERM; last output:\n"
          + ServerLaunch.logTail(log));
    }
    return process.exitValue();
  }

  Path log() {
    return log;
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException alreadyShuttingDown) {
      return; // the hook is running and kills the server
    }
    killQuietly();
  }

  private void killQuietly() {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      waitFor(KILL_WAIT_SEC);
    }
  }

  private boolean waitFor(long timeoutSec) {
    try {
      return process.waitFor(timeoutSec, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchFailure("interrupted while waiting for the server to exit", e);
    }
  }
}

package io.sluice.cli.crash;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The server processes and take streams one crash test opens. Registered with
 * {@code @RegisterExtension}, it closes the streams, stops every process still running and prints
 * each process's output after every test, so a failure shows what the servers logged.
 */
final class CrashServers implements AfterEachCallback {
  /** Exit status Java reports for a process ended by SIGKILL (128 + 9). */
  static final int SIGKILL_STATUS = 137;
  private static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(30);

  private final List<SluiceProcess> started = new ArrayList<>();
  private final List<TakeReader> readers = new ArrayList<>();

  /** Starts a server over {@code root}, logging to a new file in {@code logDir}. */
  SluiceProcess start(Path root, Path logDir) throws Exception {
    Path log = logDir.resolve("server-" + (started.size() + 1) + ".log");
    SluiceProcess server = SluiceProcess.start(root, log, HEALTH_TIMEOUT);
    started.add(server);
    return server;
  }

  /**
   * Starts a server over {@code root} with extra {@code serve} flags and environment variables,
   * and waits until it is healthy.
   */
  SluiceProcess start(Path root, Path logDir, List<String> serveArgs, Map<String, String> env)
      throws Exception {
    SluiceProcess server = launch(root, logDir, serveArgs, env);
    server.awaitHealthy(HEALTH_TIMEOUT);
    return server;
  }

  /** Starts a server process the same way and returns at once; stopped after the test. */
  SluiceProcess launch(Path root, Path logDir, List<String> serveArgs, Map<String, String> env)
      throws Exception {
    Path log = logDir.resolve("server-" + (started.size() + 1) + ".log");
    List<String> args = new ArrayList<>(List.of("--warm-up-jobs", "0"));
    args.addAll(serveArgs);
    SluiceProcess server = SluiceProcess.launch(root, log, List.of(), args, env);
    started.add(server);
    return server;
  }

  /** Opens a take stream on {@code server}, closed after the test. */
  TakeReader take(SluiceProcess server, String query) {
    TakeReader reader = new TakeReader(server, query);
    readers.add(reader);
    return reader;
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    for (TakeReader reader : readers) {
      reader.close();
    }
    for (SluiceProcess server : started) {
      server.forceStop();
    }
    for (SluiceProcess server : started) {
      System.out.println("----- server pid " + server.pid() + " output -----");
      System.out.println(server.output());
    }
  }
}

package io.sluice.cli.crash;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * A real {@code sluice serve} running as a separate OS process on the test classpath, with its
 * stdout and stderr captured in one file.
 */
public final class SluiceProcess {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private final Process process;
  private final Path log;
  private final int port;
  private final int adminPort;
  private final String scheme;
  private final String host;
  private final SSLContext sslContext;
  private final HttpClient http;

  private SluiceProcess(Process process, Path log, String host, int port, int adminPort,
      SSLContext sslContext) {
    this.process = process;
    this.host = host;
    this.log = log;
    this.port = port;
    this.adminPort = adminPort;
    this.scheme = sslContext == null ? "http" : "https";
    this.sslContext = sslContext;
    HttpClient.Builder http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5));
    if (sslContext != null) {
      http.sslContext(sslContext);
    }
    this.http = http.build();
  }

  /**
   * Starts the server on fresh ports and waits (bounded) until {@code GET /health} is 200.
   * Without its start-up warm-up, which these tests do not need and which would slow each start.
   */
  public static SluiceProcess start(Path rootDir, Path log, Duration healthTimeout)
      throws Exception {
    return start(rootDir, log, healthTimeout, List.of(), List.of("--warm-up-jobs", "0"));
  }

  /** The same with options for the JVM and for {@code serve}. */
  public static SluiceProcess start(Path rootDir, Path log, Duration healthTimeout,
      List<String> jvmArgs, List<String> serveArgs) throws Exception {
    return start(rootDir, log, healthTimeout, jvmArgs, serveArgs, null);
  }

  /**
   * The same for a primary listener on HTTPS ({@code serveArgs} name its files): the test's own
   * requests go through {@code sslContext}.
   */
  public static SluiceProcess start(Path rootDir, Path log, Duration healthTimeout,
      List<String> jvmArgs, List<String> serveArgs, SSLContext sslContext) throws Exception {
    SluiceProcess server = launch(rootDir, log, jvmArgs, serveArgs, sslContext, Map.of());
    try {
      server.awaitHealthy(healthTimeout);
    } catch (Throwable e) {
      server.forceStop();
      throw e;
    }
    return server;
  }

  /** Starts the server process and returns at once, before it is listening. */
  static SluiceProcess launch(Path rootDir, Path log, List<String> jvmArgs,
      List<String> serveArgs) throws Exception {
    return launch(rootDir, log, jvmArgs, serveArgs, null, Map.of());
  }

  /** The same with {@code env} set, which may hold {@code SLUICE_*} variables. */
  static SluiceProcess launch(Path rootDir, Path log, List<String> jvmArgs,
      List<String> serveArgs, Map<String, String> env) throws Exception {
    return launch(rootDir, log, jvmArgs, serveArgs, null, env);
  }

  private static SluiceProcess launch(Path rootDir, Path log, List<String> jvmArgs,
      List<String> serveArgs, SSLContext sslContext, Map<String, String> env) throws Exception {
    int port = freePort();
    int adminPort = freePort();
    while (adminPort == port) {
      adminPort = freePort();
    }
    return launch(rootDir, log, jvmArgs, serveArgs, sslContext, env, port, adminPort);
  }

  /**
   * Starts a server on the same root directory and ports as this one, which must have stopped
   * (clients that know its address find the new one), and waits until it is healthy.
   */
  public SluiceProcess restart(Path rootDir, Path newLog, Duration healthTimeout)
      throws Exception {
    SluiceProcess server = launch(rootDir, newLog, List.of(), List.of("--warm-up-jobs", "0"),
        sslContext, Map.of(), port, adminPort);
    try {
      server.awaitHealthy(healthTimeout);
    } catch (Throwable e) {
      server.forceStop();
      throw e;
    }
    return server;
  }

  /** Starts a server on the given ports and returns at once, before it is listening. */
  public static SluiceProcess launchOn(Path rootDir, Path log, List<String> serveArgs, int port,
      int adminPort) throws Exception {
    return launch(rootDir, log, List.of(), serveArgs, null, Map.of(), port, adminPort);
  }

  /**
   * The same with both listeners on {@code host}, and the command run through {@code prefix}
   * (such as {@code ip netns exec NAME}, to start it in a network namespace).
   */
  public static SluiceProcess launchIn(List<String> prefix, String host, Path rootDir, Path log,
      List<String> serveArgs, int port, int adminPort) throws Exception {
    return launch(prefix, host, rootDir, log, List.of(), serveArgs, null, Map.of(), port,
        adminPort);
  }

  private static SluiceProcess launch(Path rootDir, Path log, List<String> jvmArgs,
      List<String> serveArgs, SSLContext sslContext, Map<String, String> env, int port,
      int adminPort) throws Exception {
    return launch(List.of(), "127.0.0.1", rootDir, log, jvmArgs, serveArgs, sslContext, env,
        port, adminPort);
  }

  private static SluiceProcess launch(List<String> prefix, String host, Path rootDir, Path log,
      List<String> jvmArgs, List<String> serveArgs, SSLContext sslContext,
      Map<String, String> env, int port, int adminPort) throws Exception {
    String javaBin = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = new ArrayList<>(prefix);
    command.add(javaBin);
    command.addAll(jvmArgs);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"),
        "io.sluice.cli.Main", "serve",
        "--root-dir", rootDir.toString(),
        "--host", host,
        "--port", Integer.toString(port),
        "--admin-host", host,
        "--admin-port", Integer.toString(adminPort)));
    command.addAll(serveArgs);
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.PIPE);
    // The server reads SLUICE_* variables; none from the build environment may leak in.
    builder.environment().keySet().removeIf(name -> name.startsWith("SLUICE_"));
    builder.environment().putAll(env);
    return new SluiceProcess(builder.start(), log, host, port, adminPort, sslContext);
  }

  public void awaitHealthy(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    HttpRequest health = HttpRequest.newBuilder(uri("/health"))
        .timeout(Duration.ofSeconds(1)).GET().build();
    while (true) {
      if (!process.isAlive()) {
        throw new AssertionError("server exited with status " + process.exitValue()
            + " before becoming healthy; output:\n" + output());
      }
      try {
        HttpResponse<String> response = http.send(health, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // Not listening yet.
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("server not healthy within " + timeout + "; output:\n"
            + output());
      }
      Thread.sleep(100);
    }
  }

  public URI uri(String pathAndQuery) {
    return URI.create(scheme + "://" + host + ":" + port + pathAndQuery);
  }

  public int port() {
    return port;
  }

  public int adminPort() {
    return adminPort;
  }

  /** The admin listener's base URL, as {@code --url} takes it. */
  String adminUrl() {
    return "http://" + host + ":" + adminPort;
  }

  public HttpClient http() {
    return http;
  }

  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(uri(path)).timeout(REQUEST_TIMEOUT).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
    return http.send(postRequest(path, json), HttpResponse.BodyHandlers.ofString());
  }

  HttpRequest postRequest(String path, String json) {
    return HttpRequest.newBuilder(uri(path)).timeout(REQUEST_TIMEOUT)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8))
        .build();
  }

  long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL; returns the exit status once the process is gone (bounded wait). */
  public int sigkill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError("server did not die within 10 s of SIGKILL");
    }
    return process.exitValue();
  }

  /** SIGTERM; returns the exit status, or -1 if the process did not exit within the timeout. */
  public int sigterm(Duration timeout) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return -1;
    }
    return process.exitValue();
  }

  /** The exit status once the process has ended by itself, or -1 after the timeout. */
  int awaitExit(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
  }

  /** Kills the process if it is still running; safe to call repeatedly. */
  public void forceStop() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  public String output() {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "<unreadable " + log + ": " + e + ">";
    }
  }

  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }
}

package io.sluice.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A cluster of real {@code sluice serve} processes on loopback (the server's main class is on
 * this module's test classpath), each with its own root directory and free ports. For tests of
 * the client against a real cluster; the server's own cluster tests have a fuller harness.
 */
final class ClusterNodes implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One node: its ports, data and, while it runs, its process. */
  private record Node(String id, Path root, int raftPort, int port, int adminPort, Path log,
      Process process) {}

  private final Map<String, Node> nodes = new LinkedHashMap<>();
  /** Kills the nodes if the test JVM exits without closing this (a surefire timeout). */
  private final Thread onExit = new Thread(this::killAll, "cluster-nodes-exit");
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2))
      .followRedirects(HttpClient.Redirect.NEVER)
      .build();

  /** Launches {@code size} nodes n1, n2, … under {@code dir} and waits until each answers. */
  static ClusterNodes start(Path dir, int size, Duration timeout) throws Exception {
    ClusterNodes cluster = new ClusterNodes();
    Runtime.getRuntime().addShutdownHook(cluster.onExit);
    try {
      Set<Integer> taken = new HashSet<>();
      List<String> ids = new ArrayList<>();
      List<int[]> ports = new ArrayList<>();
      for (int i = 1; i <= size; i++) {
        ids.add("n" + i);
        ports.add(new int[] {freePort(taken), freePort(taken), freePort(taken)});
      }
      String peers = IntStream.range(0, size)
          .mapToObj(i -> ids.get(i) + "=127.0.0.1:" + ports.get(i)[0])
          .collect(Collectors.joining(","));
      for (int i = 0; i < size; i++) {
        cluster.launch(dir, ids.get(i), ports.get(i), peers);
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      for (String id : ids) {
        cluster.awaitHealthy(id, deadline);
      }
      return cluster;
    } catch (Throwable e) {
      cluster.close();
      throw e;
    }
  }

  private void launch(Path dir, String id, int[] ports, String peers) throws IOException {
    Path root = Files.createDirectories(dir.resolve(id));
    Path log = dir.resolve(id + ".log");
    String java = ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> command = List.of(java, "-cp", System.getProperty("java.class.path"),
        "io.sluice.cli.Main", "serve",
        "--root-dir", root.toString(),
        "--host", "127.0.0.1", "--port", Integer.toString(ports[1]),
        "--admin-host", "127.0.0.1", "--admin-port", Integer.toString(ports[2]),
        "--warm-up-jobs", "0",
        // Completed jobs are kept, so a test can tell a completed job from a lost one.
        "--default-completed-job-retention", "1h",
        "--cluster-id", "client-test", "--node-id", id, "--peers", peers);
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("SLUICE_"));
    nodes.put(id, new Node(id, root, ports[0], ports[1], ports[2], log, builder.start()));
  }

  private void awaitHealthy(String id, long deadline) throws Exception {
    Node node = nodes.get(id);
    while (true) {
      if (!node.process().isAlive()) {
        throw new AssertionError(id + " exited with status " + node.process().exitValue()
            + "; output:\n" + output(id));
      }
      HttpResponse<String> health = get(URI.create(url(id) + "/health"));
      if (health != null && health.statusCode() == 200) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(id + " not healthy in time; output:\n" + output(id));
      }
      Thread.sleep(100);
    }
  }

  /**
   * Waits until one running node says it leads, every running node names it with its URL, and
   * the leader serves the API itself; returns its id.
   */
  String awaitLeader(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String leader = agreedLeader();
      if (leader != null) {
        HttpResponse<String> queues = get(URI.create(url(leader) + "/queues"));
        if (queues != null && queues.statusCode() == 200) {
          return leader;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no leader agreed within " + timeout + ": "
            + running().stream().map(id -> id + "=" + status(id)).toList());
      }
      Thread.sleep(50);
    }
  }

  private String agreedLeader() {
    String agreed = null;
    for (String id : running()) {
      JsonNode status = status(id);
      if (status == null || !status.path("leader_url").isTextual()) {
        return null;
      }
      String leader = status.path("leader_id").asText();
      if (agreed != null && !agreed.equals(leader) || !running().contains(leader)
          || !status.get("leader_url").asText().equals(url(leader))) {
        return null;
      }
      agreed = leader;
    }
    JsonNode leaderStatus = agreed == null ? null : status(agreed);
    return leaderStatus != null && "leader".equals(leaderStatus.path("role").asText())
        ? agreed : null;
  }

  /** {@code GET /cluster} on the node's admin listener; null when it does not answer 200. */
  JsonNode status(String id) {
    Node node = nodes.get(id);
    HttpResponse<String> response =
        get(URI.create("http://127.0.0.1:" + node.adminPort() + "/cluster"));
    try {
      return response != null && response.statusCode() == 200
          ? JSON.readTree(response.body()) : null;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * A plain {@code GET} on the node's primary listener, not following redirects; null when the
   * connection is refused.
   */
  HttpResponse<String> get(String id, String pathAndQuery) {
    return get(URI.create(url(id) + pathAndQuery));
  }

  private HttpResponse<String> get(URI uri) {
    try {
      return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The base URL of the node's primary listener. */
  String url(String id) {
    return "http://127.0.0.1:" + nodes.get(id).port();
  }

  /** Every node's id, in start order. */
  List<String> ids() {
    return new ArrayList<>(nodes.keySet());
  }

  /** The ids of the nodes whose process is alive. */
  List<String> running() {
    return nodes.values().stream().filter(node -> node.process().isAlive()).map(Node::id)
        .toList();
  }

  /** SIGKILL, waiting (bounded) until the process is gone. */
  void kill(String id) throws InterruptedException {
    Process process = nodes.get(id).process();
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new AssertionError(id + " did not die within 10 s of SIGKILL");
    }
  }

  /** The node's output so far, for failure messages. */
  String output(String id) {
    try {
      Path log = nodes.get(id).log();
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return "<unreadable: " + e + ">";
    }
  }

  /** Kills every node still running (only the processes this cluster started). */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(onExit);
    } catch (IllegalStateException e) {
      // The JVM is exiting: the hook runs killAll anyway.
    }
    killAll();
  }

  private void killAll() {
    for (Node node : nodes.values()) {
      node.process().destroyForcibly();
    }
    for (Node node : nodes.values()) {
      try {
        node.process().waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static int freePort(Set<Integer> taken) throws IOException {
    while (true) {
      try (ServerSocket socket = new ServerSocket(0)) {
        socket.setReuseAddress(true);
        if (taken.add(socket.getLocalPort())) {
          return socket.getLocalPort();
        }
      }
    }
  }
}

package io.sluice.cli.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.cli.crash.SluiceProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A cluster of real {@code sluice serve} processes on loopback, each with its own root
 * directory, Raft port and listeners. Nodes can be killed, wiped and started again on the same
 * ports.
 */
final class LocalCluster implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  /** One member: where it keeps its data, where it listens, how its command is started. */
  record Member(String id, Path root, String host, int raftPort, int port, int adminPort,
      List<String> prefix) {}

  private final Path dir;
  private final List<String> serveArgs;
  private final Map<String, Member> members = new LinkedHashMap<>();
  private final Map<String, SluiceProcess> running = new LinkedHashMap<>();
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2))
      .followRedirects(HttpClient.Redirect.NEVER)
      .build();
  private int starts;

  private LocalCluster(Path dir, List<String> serveArgs) {
    this.dir = dir;
    this.serveArgs = List.copyOf(serveArgs);
  }

  /** Starts {@code size} nodes named n1, n2, … and waits until each answers. */
  static LocalCluster start(Path dir, int size) throws Exception {
    return start(dir, size, List.of());
  }

  /** The same with more options for every node's {@code serve} ({@code {id}}: the node's). */
  static LocalCluster start(Path dir, int size, List<String> serveArgs) throws Exception {
    return start(dir, size, serveArgs, null);
  }

  /**
   * The same with node {@code i} in namespace {@code i} of {@code net} (null: loopback). On
   * loopback a port picked free can be taken before its node binds it (by another node's
   * outgoing connection, for one), so a start that fails on a taken port is tried again on
   * other ports.
   */
  static LocalCluster start(Path dir, int size, List<String> serveArgs, Netns net)
      throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(dir, size, serveArgs, net);
      } catch (AssertionError | Exception e) {
        if (net != null || attempt == 3 || !String.valueOf(e.getMessage())
            .contains("Address already in use")) {
          throw e;
        }
        for (int i = 1; i <= size; i++) { // the next attempt starts the nodes afresh
          deleteTree(dir.resolve("n" + i));
        }
      }
    }
  }

  private static LocalCluster startOnce(Path dir, int size, List<String> serveArgs, Netns net)
      throws Exception {
    LocalCluster cluster = new LocalCluster(dir, serveArgs);
    try {
      for (int i = 1; i <= size; i++) {
        String id = "n" + i;
        cluster.members.put(id, net == null
            ? new Member(id, dir.resolve(id), "127.0.0.1", SluiceProcess.freePort(),
                SluiceProcess.freePort(), SluiceProcess.freePort(), List.of())
            // Each namespace has its own ports: the same numbers serve every node.
            : new Member(id, dir.resolve(id), net.address(i), 9101, 7101, 7201, net.prefix(i)));
      }
      for (String id : cluster.members.keySet()) {
        cluster.launch(id);
      }
      for (SluiceProcess node : cluster.running.values()) {
        node.awaitHealthy(START_TIMEOUT);
      }
      return cluster;
    } catch (Throwable e) {
      cluster.close();
      throw e;
    }
  }

  private SluiceProcess launch(String id) throws Exception {
    Member member = members.get(id);
    String peers = members.values().stream()
        .map(peer -> peer.id() + "=" + peer.host() + ":" + peer.raftPort())
        .collect(Collectors.joining(","));
    Files.createDirectories(member.root());
    // Completed jobs are kept, so a test can tell an acknowledged job from a lost one.
    List<String> args = new ArrayList<>(List.of("--warm-up-jobs", "0",
        "--default-completed-job-retention", "1h",
        "--cluster-id", "test", "--node-id", id, "--peers", peers));
    // "{id}" in an option stands for the node's id (a file per node, for instance).
    serveArgs.forEach(arg -> args.add(arg.replace("{id}", id)));
    SluiceProcess process = SluiceProcess.launchIn(member.prefix(), member.host(), member.root(),
        dir.resolve(id + "-" + (++starts) + ".log"), args, member.port(), member.adminPort());
    running.put(id, process);
    return process;
  }

  /** Starts a stopped node again on its ports and data, and waits until it answers. */
  void restart(String id) throws Exception {
    launch(id).awaitHealthy(START_TIMEOUT);
  }

  /** The root directory a node keeps its data in. */
  Path root(String id) {
    return members.get(id).root();
  }

  /** SIGKILL. */
  void kill(String id) throws InterruptedException {
    running.remove(id).sigkill();
  }

  /** Deletes a stopped node's data and log, as after a lost disk. */
  void wipe(String id) throws IOException {
    deleteTree(members.get(id).root());
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }

  List<String> runningIds() {
    return new ArrayList<>(running.keySet());
  }

  SluiceProcess process(String id) {
    return running.get(id);
  }

  URI url(String id, String pathAndQuery) {
    Member member = members.get(id);
    return URI.create("http://" + member.host() + ":" + member.port() + pathAndQuery);
  }

  URI adminUrl(String id, String pathAndQuery) {
    Member member = members.get(id);
    return URI.create("http://" + member.host() + ":" + member.adminPort() + pathAndQuery);
  }

  /** The base URL of a node's primary listener. */
  String baseUrl(String id) {
    Member member = members.get(id);
    return "http://" + member.host() + ":" + member.port();
  }

  /** The node whose primary listener a URL names. */
  String idOf(String url) {
    URI uri = URI.create(url);
    return members.values().stream()
        .filter(member -> member.port() == uri.getPort() && member.host().equals(uri.getHost()))
        .map(Member::id).findFirst()
        .orElseThrow(() -> new AssertionError("no node listens at " + url));
  }

  /** Every member's id, running or not. */
  List<String> ids() {
    return new ArrayList<>(members.keySet());
  }

  HttpClient http() {
    return http;
  }

  /** {@code POST} of a JSON body to a node's primary listener; redirects are not followed. */
  HttpResponse<String> postJson(String id, String pathAndQuery, String json)
      throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(url(id, pathAndQuery))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** {@code GET /cluster} on a node's admin listener, or null when it does not answer. */
  JsonNode status(String id) {
    try {
      HttpResponse<String> response = http.send(
          HttpRequest.newBuilder(adminUrl(id, "/cluster")).timeout(Duration.ofSeconds(2))
              .GET().build(),
          HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? JSON.readTree(response.body()) : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * Waits until a running node says it leads and every running node names it, with its URL, and
   * the leader's primary listener answers; returns its id.
   */
  String awaitLeader(Duration timeout) throws Exception {
    return awaitLeaderAmong(running.keySet(), timeout);
  }

  /** The same, asking only the nodes {@code ids} (the side of a partition). */
  String awaitLeaderAmong(java.util.Collection<String> ids, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      String leader = agreedLeader(ids);
      if (leader != null && answers(leader)) {
        return leader;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no leader agreed within " + timeout + ": "
        + running.keySet().stream().map(this::status).toList());
  }

  private String agreedLeader(java.util.Collection<String> ids) {
    String agreed = null;
    for (String id : ids) {
      JsonNode status = status(id);
      if (status == null || !status.path("leader_url").isTextual()) {
        return null;
      }
      String leader = status.get("leader_id").asText();
      if (agreed != null && !agreed.equals(leader) || !ids.contains(leader)) {
        return null;
      }
      agreed = leader;
    }
    if (agreed == null) {
      return null;
    }
    JsonNode leaderStatus = status(agreed);
    return leaderStatus != null && "leader".equals(leaderStatus.path("role").asText())
        ? agreed : null;
  }

  /** Waits until the node has applied log entry {@code index}; returns its status then. */
  JsonNode awaitApplied(String id, long index, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      JsonNode status = status(id);
      if (status != null && status.path("applied_index").asLong(-1) >= index) {
        return status;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(id + " did not apply index " + index + ": " + status + "\n"
            + output(id));
      }
      Thread.sleep(50);
    }
  }

  /** Whether the node serves the API itself (a follower would redirect). */
  boolean answers(String id) {
    try {
      HttpResponse<String> response = http.send(
          HttpRequest.newBuilder(url(id, "/queues")).timeout(Duration.ofSeconds(1)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The node's output so far, for failure messages. */
  String output(String id) {
    SluiceProcess process = running.get(id);
    return process == null ? "(not running)" : process.output();
  }

  @Override
  public void close() {
    for (SluiceProcess process : running.values()) {
      process.forceStop();
    }
    running.clear();
  }
}

package io.sluice.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Answers of the nodes of a cluster, as {@code FollowerListener} gives them, for fake nodes made
 * of {@link FakeHttpServer}s.
 */
final class FakeNodes {
  static final String NO_LEADER =
      "{\"error\":\"no leader is elected yet; retry shortly\",\"leader\":null}";
  private static final String STREAM_HEAD = "HTTP/1.1 200 OK\r\n"
      + "Content-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n";

  private FakeNodes() {}

  static String response(int status, String headers, String body) {
    return "HTTP/1.1 " + status + " X\r\n" + headers + "Content-Type: application/json\r\n"
        + "Content-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
  }

  static String ok(String body) {
    return response(200, "", body);
  }

  static String job(String id) {
    return "{\"id\":\"" + id + "\",\"type\":\"t\",\"queue\":\"q\",\"status\":\"in_flight\","
        + "\"payload\":{\"n\":1}}";
  }

  /** What a follower answers to anything but a take stream when {@code leader} leads. */
  static String redirect(String leader, FakeHttpServer.Request request) {
    return response(307, "Location: " + leader + request.line().split(" ")[1] + "\r\n",
        "{\"error\":\"this node is not the leader; repeat the request there\",\"leader\":\""
            + leader + "\"}");
  }

  /** What a follower answers to a take stream when {@code leader} leads. */
  static String refuseStream(String leader) {
    return response(503, "Retry-After: 1\r\n",
        "{\"error\":\"this node is not the leader; open the take stream on the leader\","
            + "\"leader\":\"" + leader + "\"}");
  }

  /** What any node answers while no leader is elected. */
  static String noLeader() {
    return response(503, "Retry-After: 1\r\n", NO_LEADER);
  }

  /** Opens a take stream that delivers {@code jobId}, and keeps it open until the client closes. */
  static void stream(FakeHttpServer.Conn conn, String jobId) throws IOException {
    String line = job(jobId) + "\n";
    conn.write(STREAM_HEAD + Integer.toHexString(line.length()) + "\r\n" + line + "\r\n");
    conn.awaitClientClose(Duration.ofSeconds(25));
  }

  /** A leader that streams {@code jobId} to a take stream and answers everything else 200. */
  static FakeHttpServer streamingLeader(String jobId) {
    return FakeHttpServer.start(conn -> {
      FakeHttpServer.Request request;
      while ((request = conn.readRequest()) != null) {
        if (request.line().startsWith("GET /jobs/take")) {
          stream(conn, jobId);
          return;
        }
        conn.write(ok("{}"));
      }
    });
  }

  /** The URL of a loopback port nobody listens on (it refuses connections). */
  static String deadUrl() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return "http://127.0.0.1:" + socket.getLocalPort();
    }
  }

  /** The request lines a server received, in order. */
  static List<String> lines(FakeHttpServer server) {
    return server.requests().stream().map(FakeHttpServer.Request::line).toList();
  }
}

package io.sluice.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What every tool that launches its own server process needs: free loopback ports, a bounded wait
 * for {@code GET /health}, and the tail of the server's log for failure reports. Stateless; called
 * from the tool's main thread.
 */
public final class ServerLaunch {

  private static final int LOG_TAIL_LINES = 40;

  private ServerLaunch() {}

  /** {@code n} distinct loopback ports that were free a moment ago. */
  public static int[] freeLoopbackPorts(int n) throws IOException {
    // Hold all sockets until every port is chosen so the same port is not handed out twice.
    ServerSocket[] sockets = new ServerSocket[n];
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ports[i] = sockets[i].getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : sockets) {
        if (s != null) {
          s.close();
        }
      }
    }
  }

  /**
   * Polls {@code GET /health} until it answers 200 "ok"; fails early, quoting the log, when the
   * process exits first.
   */
  public static void awaitHealthy(Process process, Endpoint endpoint, long timeoutSec, Path log) {
    HttpClient http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(2))
        .build();
    HttpRequest health = HttpRequest.newBuilder(URI.create(endpoint.url() + "/health"))
        .timeout(Duration.ofSeconds(2))
        .GET()
        .build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSec);
    String last = "no answer yet";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new BenchFailure("server exited with status " + process.exitValue() + " before becoming healthy;"
            + " last output:\n" + logTail(log));
      }
      try {
        HttpResponse<String> resp = http.send(health, HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() == 200 && resp.body().contains("ok")) {
          return;
        }
        last = "status " + resp.statusCode() + ": " + resp.body();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BenchFailure("interrupted while waiting for the server");
      }
      sleep(50);
    }
    throw new BenchFailure("server not healthy after " + timeoutSec + " s (" + last + "); last output:\n"
        + logTail(log));
  }

  /** Last lines of a server's output, for failure reports. */
  public static String logTail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(server log unreadable: " + e.getMessage() + ")";
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

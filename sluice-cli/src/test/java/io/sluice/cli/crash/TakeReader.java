package io.sluice.cli.crash;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An NDJSON take stream ({@code GET /jobs/take}) read on its own thread; jobs are queued for the
 * test, heartbeats (blank lines) skipped.
 */
public final class TakeReader implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final BlockingQueue<JsonNode> jobs = new LinkedBlockingQueue<>();
  private final CompletableFuture<Integer> status = new CompletableFuture<>();
  private final CountDownLatch finished = new CountDownLatch(1);
  private final Thread thread;
  private volatile InputStream body;
  private volatile boolean endedCleanly;
  private volatile Throwable failure;

  public TakeReader(SluiceProcess server, String query) {
    // No request timeout: the body is endless, and waits on it are bounded by the callers.
    HttpRequest request = HttpRequest.newBuilder(server.uri("/jobs/take?" + query))
        .header("Accept", "application/x-ndjson")
        .GET().build();
    thread = new Thread(() -> run(server, request), "take-reader");
    thread.setDaemon(true);
    thread.start();
  }

  private void run(SluiceProcess server, HttpRequest request) {
    try {
      HttpResponse<InputStream> response =
          server.http().send(request, HttpResponse.BodyHandlers.ofInputStream());
      body = response.body();
      status.complete(response.statusCode());
      try (BufferedReader reader =
          new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          if (!line.isBlank()) {
            jobs.add(JSON.readTree(line));
          }
        }
      }
      endedCleanly = true;
    } catch (Throwable e) {
      failure = e;
      status.completeExceptionally(e);
    } finally {
      finished.countDown();
    }
  }

  /** The HTTP status of the take response (bounded wait). */
  public int status(Duration timeout) throws Exception {
    return status.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Exactly {@code count} jobs, or an assertion error when they do not all arrive in time. */
  public List<JsonNode> take(int count, Duration timeout) throws InterruptedException {
    List<JsonNode> taken = new ArrayList<>(count);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (taken.size() < count) {
      long left = deadline - System.nanoTime();
      JsonNode job = left > 0 ? jobs.poll(left, TimeUnit.NANOSECONDS) : null;
      if (job == null) {
        throw new AssertionError("received " + taken.size() + " of " + count
            + " jobs within " + timeout + " (stream failure: " + failure + ")");
      }
      taken.add(job);
    }
    return taken;
  }

  /** The next job, or null when none arrives within the timeout. */
  public JsonNode poll(Duration timeout) throws InterruptedException {
    return jobs.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Moves every job already received into {@code sink}. */
  int drainTo(List<JsonNode> sink) {
    return jobs.drainTo(sink);
  }

  /** Whether the stream has ended (EOF or error) within the timeout. */
  boolean awaitEnd(Duration timeout) throws InterruptedException {
    return finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  boolean endedCleanly() {
    return endedCleanly;
  }

  Throwable failure() {
    return failure;
  }

  /** Disconnects: closes the body (the client drops the connection) and stops the thread. */
  @Override
  public void close() throws InterruptedException {
    InputStream in = body;
    if (in != null) {
      try {
        in.close();
      } catch (IOException e) {
        // Closing is best effort.
      }
    }
    thread.interrupt();
    thread.join(5_000);
  }
}

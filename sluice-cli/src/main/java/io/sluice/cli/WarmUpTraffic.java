package io.sluice.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The traffic of {@link WarmUp}, as a client sends it: a share of the jobs enqueued in bulk
 * beforehand and drained, the rest enqueued one by one while a take stream waits for them;
 * jobs that arrive together are acknowledged together, a job that arrives alone on its own.
 * Bounded by a deadline on a machine too slow for it, and ended early when the server is asked
 * to stop.
 */
final class WarmUpTraffic {
  static final String QUEUE = "warm-up";
  /** The most a warm-up may take, all rounds together. */
  static final Duration TIME_LIMIT = Duration.ofSeconds(10);
  private static final int BULK_SIZE = 500;
  private static final int PREFETCH = 32;
  private static final int ACK_BATCH = 16;
  /** Threads enqueueing jobs one request each, side by side. */
  private static final int SENDERS = 3;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PAYLOAD = "{\"n\":%d,\"text\":\"" + "x".repeat(64) + "\"}";

  private final String base;
  private final BooleanSupplier stopRequested;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final long deadlineNanos;

  /** {@code deadlineNanos} is a {@link System#nanoTime} past which no more is sent. */
  WarmUpTraffic(String base, BooleanSupplier stopRequested, long deadlineNanos) {
    this.base = base;
    this.stopRequested = stopRequested;
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * Enqueues {@code bulkPercent} of the jobs in bulk first, the rest one by one to a waiting
   * take stream.
   *
   * @return the jobs taken and acknowledged
   */
  int run(int jobs, int bulkPercent) throws IOException, InterruptedException {
    int bulk = jobs * bulkPercent / 100;
    int single = jobs - bulk;
    for (int from = 0; from < bulk && inTime(); from += BULK_SIZE) {
      enqueueBulk(from, Math.min(BULK_SIZE, bulk - from));
    }
    AtomicReference<Exception> enqueueFailure = new AtomicReference<>();
    // A few senders at once: what is compiled depends on how many requests the server sees, not
    // on how long each waits for its answer, and the start-up waits for the warm-up.
    List<Thread> senders = new ArrayList<>();
    for (int sender = 0; sender < SENDERS; sender++) {
      int first = sender;
      senders.add(new Thread(() -> {
        try {
          for (int i = first; i < single && inTime(); i += SENDERS) {
            post("/jobs", String.format(
                "{\"type\":\"warm-up\",\"queue\":\"%s\",\"payload\":%s}", QUEUE,
                String.format(PAYLOAD, i)));
          }
        } catch (Exception e) {
          enqueueFailure.set(e);
        }
      }, "sluice-warm-up-enqueue-" + sender));
    }
    int taken;
    HttpResponse<InputStream> stream = http.send(
        HttpRequest.newBuilder(URI.create(base + "/jobs/take?queue=" + QUEUE + "&prefetch="
            + PREFETCH)).timeout(remaining()).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = stream.body()) {
      senders.forEach(Thread::start);
      taken = drain(new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8)),
          bulk + single, enqueueFailure);
    }
    for (Thread sender : senders) {
      sender.join(remaining().toMillis());
    }
    return taken;
  }

  private int drain(BufferedReader lines, int expected, AtomicReference<Exception> failure)
      throws IOException, InterruptedException {
    List<String> pending = new ArrayList<>();
    int taken = 0;
    while (taken < expected && inTime() && failure.get() == null) {
      String line = lines.readLine();
      if (line == null) {
        break;
      }
      if (line.isBlank()) { // a heartbeat: nothing more arrived meanwhile
        if (!pending.isEmpty()) {
          ack(pending);
          pending.clear();
        }
        continue;
      }
      JsonNode job = JSON.readTree(line);
      pending.add(job.get("id").asText());
      taken++;
      // Ack what arrived together; the stream sends no more than the prefetch unacknowledged.
      if (pending.size() >= ACK_BATCH || !lines.ready() || taken == expected) {
        ack(pending);
        pending.clear();
      }
    }
    return taken;
  }

  private void enqueueBulk(int from, int count) throws IOException, InterruptedException {
    StringBuilder body = new StringBuilder("{\"jobs\":[");
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        body.append(',');
      }
      body.append("{\"type\":\"warm-up\",\"queue\":\"").append(QUEUE).append("\",\"payload\":")
          .append(String.format(PAYLOAD, from + i)).append('}');
    }
    post("/jobs/bulk", body.append("]}").toString());
  }

  private void ack(List<String> ids) throws IOException, InterruptedException {
    post("/jobs/success", JSON.writeValueAsString(java.util.Map.of("ids", ids)));
  }

  private void post(String path, String json) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(URI.create(base + path)).timeout(remaining())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 300) {
      throw new IOException("POST " + path + " answered " + response.statusCode() + ": "
          + response.body());
    }
  }

  /** What is left until the deadline, at least a millisecond (a timeout must be positive). */
  private Duration remaining() {
    return Duration.ofNanos(Math.max(1_000_000, deadlineNanos - System.nanoTime()));
  }

  private boolean inTime() {
    return System.nanoTime() < deadlineNanos && !stopRequested.getAsBoolean();
  }
}

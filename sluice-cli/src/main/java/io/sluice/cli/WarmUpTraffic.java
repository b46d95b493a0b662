package io.sluice.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The traffic of {@link WarmUp}, as a client sends it: a share of the jobs enqueued in bulk
 * beforehand and drained, the rest enqueued one by one while a take stream waits for them;
 * jobs that arrive together are acknowledged together, a job that arrives alone on its own.
 * Bounded by a deadline on a machine too slow for it, and ended early when the server is asked
 * to stop. Spoken through {@link WarmUpConnection}s, one per thread.
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

  private static final String HOST = "127.0.0.1";
  /** How long past the deadline a connection may still be busy before it is closed. */
  private static final long DEADLINE_GRACE_MS = 1000;

  private final int port;
  private final BooleanSupplier stopRequested;
  private final long deadlineNanos;
  private final Set<WarmUpConnection> open = ConcurrentHashMap.newKeySet();

  /** {@code deadlineNanos} is a {@link System#nanoTime} past which no more is sent. */
  WarmUpTraffic(int port, BooleanSupplier stopRequested, long deadlineNanos) {
    this.port = port;
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
    Thread deadline = new Thread(this::closeAllAtDeadline, "sluice-warm-up-deadline");
    deadline.setDaemon(true);
    deadline.start();
    try {
      return exchange(jobs, bulkPercent);
    } finally {
      deadline.interrupt();
    }
  }

  /**
   * Closes every connection once the deadline has passed: a read times out by itself, but a
   * write to a server that stopped reading would wait for ever, and the start-up with it.
   */
  private void closeAllAtDeadline() {
    try {
      TimeUnit.NANOSECONDS.sleep(deadlineNanos - System.nanoTime());
      TimeUnit.MILLISECONDS.sleep(DEADLINE_GRACE_MS);
    } catch (InterruptedException e) {
      return; // the traffic ended in time
    }
    for (WarmUpConnection connection : open) {
      try {
        connection.close();
      } catch (IOException e) {
        // Closing is all that is left to do with it.
      }
    }
  }

  private int exchange(int jobs, int bulkPercent) throws IOException, InterruptedException {
    int bulk = jobs * bulkPercent / 100;
    int single = jobs - bulk;
    try (WarmUpConnection requests = connect(); WarmUpConnection stream = connect()) {
      for (int from = 0; from < bulk && inTime(); from += BULK_SIZE) {
        enqueueBulk(requests, from, Math.min(BULK_SIZE, bulk - from));
      }
      AtomicReference<Exception> enqueueFailure = new AtomicReference<>();
      // A few senders at once: what is compiled depends on how many requests the server sees,
      // not on how long each waits for its answer, and the start-up waits for the warm-up.
      List<Thread> senders = new ArrayList<>();
      for (int sender = 0; sender < SENDERS; sender++) {
        int first = sender;
        senders.add(new Thread(() -> {
          try (WarmUpConnection own = connect()) {
            for (int i = first; i < single && inTime(); i += SENDERS) {
              post(own, "/jobs", String.format(
                  "{\"type\":\"warm-up\",\"queue\":\"%s\",\"payload\":%s}", QUEUE,
                  String.format(PAYLOAD, i)));
            }
          } catch (Exception e) {
            enqueueFailure.set(e);
          }
        }, "sluice-warm-up-enqueue-" + sender));
      }
      String take = "/jobs/take?queue=" + QUEUE + "&prefetch=" + PREFETCH;
      int status = stream.openStream(take, "application/x-ndjson");
      if (status != 200) {
        throw new IOException("GET " + take + " answered " + status);
      }
      senders.forEach(Thread::start);
      int taken = drain(stream, requests, bulk + single, enqueueFailure);
      for (Thread sender : senders) {
        sender.join(remaining().toMillis());
      }
      return taken;
    }
  }

  private WarmUpConnection connect() throws IOException {
    WarmUpConnection connection = new WarmUpConnection(HOST, port, () -> remaining().toMillis());
    open.add(connection);
    return connection;
  }

  private int drain(WarmUpConnection stream, WarmUpConnection requests, int expected,
      AtomicReference<Exception> failure) throws IOException {
    List<String> pending = new ArrayList<>();
    int taken = 0;
    while (taken < expected && inTime() && failure.get() == null) {
      String line = stream.readLine();
      if (line == null) {
        break;
      }
      if (line.isBlank()) { // a heartbeat: nothing more arrived meanwhile
        if (!pending.isEmpty()) {
          ack(requests, pending);
          pending.clear();
        }
        continue;
      }
      JsonNode job = JSON.readTree(line);
      pending.add(job.get("id").asText());
      taken++;
      // Ack what arrived together; the stream sends no more than the prefetch unacknowledged.
      if (pending.size() >= ACK_BATCH || !stream.ready() || taken == expected) {
        ack(requests, pending);
        pending.clear();
      }
    }
    return taken;
  }

  private void enqueueBulk(WarmUpConnection connection, int from, int count)
      throws IOException {
    StringBuilder body = new StringBuilder("{\"jobs\":[");
    for (int i = 0; i < count; i++) {
      if (i > 0) {
        body.append(',');
      }
      body.append("{\"type\":\"warm-up\",\"queue\":\"").append(QUEUE).append("\",\"payload\":")
          .append(String.format(PAYLOAD, from + i)).append('}');
    }
    post(connection, "/jobs/bulk", body.append("]}").toString());
  }

  private void ack(WarmUpConnection connection, List<String> ids) throws IOException {
    post(connection, "/jobs/success", JSON.writeValueAsString(java.util.Map.of("ids", ids)));
  }

  private static void post(WarmUpConnection connection, String path, String json)
      throws IOException {
    WarmUpConnection.Answer answer = connection.send("POST", path, json);
    if (answer.status() >= 300) {
      throw new IOException("POST " + path + " answered " + answer.status() + ": "
          + answer.body());
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

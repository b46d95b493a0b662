package io.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A separate client that sends one {@code GET /jobs/count?...} after another, back to back, on its
 * own thread and its own connection, until told to stop: the "someone is running a big query"
 * load put beside a drain. Every count is timed and its result kept; the loop is bounded in count
 * and time, and each request by the call timeout.
 */
final class CountScanner implements AutoCloseable {

  /** One count: when it started (System.nanoTime), how long it took, what it answered. */
  record Count(long startNanos, long nanos, long result) {
    long endNanos() {
      return startNanos + nanos;
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final ServerCalls calls;
  private final ServerCalls.Call call;
  private final int maxCounts;
  private final long maxNanos;
  private final List<Count> counts = new ArrayList<>();
  private final CountDownLatch firstSent = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean stop;
  private volatile RuntimeException failure;

  /**
   * @param uri path and query of the count request
   * @param maxCounts stop after this many counts
   * @param maxSec stop sending new counts after this long
   */
  CountScanner(ServerCalls calls, String uri, int maxCounts, long maxSec) {
    this.calls = calls;
    this.call = new ServerCalls.Call(HttpMethod.GET, uri, null);
    this.maxCounts = maxCounts;
    this.maxNanos = TimeUnit.SECONDS.toNanos(maxSec);
    this.thread = new Thread(this::loop, "sluice-bench-count-scanner");
    this.thread.setDaemon(true);
  }

  /** Starts the loop and returns once its first request has been handed to the client. */
  void start() {
    thread.start();
    try {
      if (!firstSent.await(10, TimeUnit.SECONDS)) {
        throw new BenchFailure("count scanner did not start within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchFailure("interrupted while starting the count scanner");
    }
  }

  /** Asks the loop to send no further request; the one in flight completes. */
  void stop() {
    stop = true;
  }

  /**
   * Stops the loop and waits for the count in flight to finish.
   * @throws BenchFailure if a count failed or the loop did not end in time
   */
  void finish(long timeoutMillis) {
    stop = true;
    try {
      thread.join(timeoutMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchFailure("interrupted while waiting for the count scanner");
    }
    if (thread.isAlive()) {
      thread.interrupt();
      throw new BenchFailure("count scanner still busy " + timeoutMillis + " ms after being stopped");
    }
    if (failure != null) {
      throw failure;
    }
  }

  synchronized List<Count> counts() {
    return List.copyOf(counts);
  }

  private void loop() {
    long start = System.nanoTime();
    try {
      int n = 0;
      while (!stop && n < maxCounts && System.nanoTime() - start < maxNanos) {
        long t0 = System.nanoTime();
        firstSent.countDown();
        ServerCalls.Answer a = calls.call(call);
        long nanos = System.nanoTime() - t0;
        long result = parseCount(call, a);
        synchronized (this) {
          counts.add(new Count(t0, nanos, result));
        }
        n++;
      }
    } catch (RuntimeException e) {
      failure = e;
    } finally {
      firstSent.countDown();
    }
  }

  /** The {@code count} of a 200 answer; anything else fails with the server's answer. */
  static long parseCount(ServerCalls.Call call, ServerCalls.Answer a) {
    if (a.status() != 200) {
      throw new BenchFailure(call + " answered " + a.status() + ": " + Snippet.of(Buffer.buffer(a.body())));
    }
    try {
      JsonNode count = JSON.readTree(a.body()).path("count");
      if (!count.canConvertToLong()) {
        throw new BenchFailure(call + " answered without a count: " + Snippet.of(Buffer.buffer(a.body())));
      }
      return count.asLong();
    } catch (IOException e) {
      throw new BenchFailure(call + " answered unparsable JSON: " + Snippet.of(Buffer.buffer(a.body())));
    }
  }

  @Override
  public void close() {
    stop = true;
  }
}

package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Sends single enqueues on a fixed schedule regardless of how fast the server answers
 * (open loop), so a slow server shows up as latency rather than as a silently lower send rate.
 *
 * <p>A 1 ms periodic timer catches up on every job whose scheduled time has passed; the send
 * timestamp is taken right before each request is issued (including any wait for a pooled
 * connection), and the worst lag behind the schedule is reported so timer jitter is visible.
 */
final class OpenLoopEnqueuer {

  private final Context ctx;
  private final HttpClientAgent client;
  private final List<Buffer> bodies;
  private final double ratePerSec;
  private final LatencyTracker tracker;
  /** Only touched on ctx; read after the workload is done. */
  private final Histogram enqueueToCreated = new Histogram(3);

  private long startNanos;
  private long lastSendNanos;
  private long maxLagNanos;
  private int next;
  private long timerId = -1;

  OpenLoopEnqueuer(Context ctx, HttpClientAgent client, List<Buffer> bodies, double ratePerSec, LatencyTracker tracker) {
    this.ctx = ctx;
    this.client = client;
    this.bodies = bodies;
    this.ratePerSec = ratePerSec;
    this.tracker = tracker;
  }

  void start() {
    ctx.runOnContext(v -> {
      startNanos = System.nanoTime();
      tick();
      if (next < bodies.size()) {
        timerId = ctx.owner().setPeriodic(1, id -> tick());
      }
    });
  }

  Histogram enqueueHistogram() {
    return enqueueToCreated;
  }

  /** Achieved send rate over the schedule: should match the requested rate. */
  double achievedRate() {
    long span = lastSendNanos - startNanos;
    return span <= 0 ? 0 : (bodies.size() - 1) / (span / 1e9);
  }

  long maxLagNanos() {
    return maxLagNanos;
  }

  /** Stops sending early (used on failure so a dead server is not hammered until the schedule ends). */
  Future<Void> stop() {
    return ClientKit.onContext(ctx, () -> {
      next = bodies.size();
      cancelTimer();
      return Future.succeededFuture();
    });
  }

  private void tick() {
    long now = System.nanoTime();
    long due = Math.min(bodies.size(), 1 + (long) ((now - startNanos) * ratePerSec / 1e9));
    while (next < due) {
      send(next++);
    }
    if (next >= bodies.size()) {
      cancelTimer();
    }
  }

  private void cancelTimer() {
    if (timerId >= 0) {
      ctx.owner().cancelTimer(timerId);
      timerId = -1;
    }
  }

  private void send(int seq) {
    long scheduled = startNanos + (long) (seq * 1e9 / ratePerSec);
    long t = System.nanoTime();
    maxLagNanos = Math.max(maxLagNanos, t - scheduled);
    lastSendNanos = t;
    tracker.sent(seq, t);
    client.request(HttpMethod.POST, "/jobs")
        .compose(req -> req.putHeader("Content-Type", "application/json").send(bodies.get(seq)))
        .compose(resp -> resp.body().map(b -> {
          if (resp.statusCode() != 201) {
            throw new BenchFailure("POST /jobs answered " + resp.statusCode() + ": " + Snippet.of(b));
          }
          return null;
        }))
        .onComplete(ar -> {
          if (ar.succeeded()) {
            enqueueToCreated.recordValue(Math.max(0, System.nanoTime() - t));
            tracker.enqueueAnswered(true);
          } else {
            tracker.fail(ar.cause() instanceof BenchFailure ? ar.cause()
                : new BenchFailure("POST /jobs failed: " + ar.cause(), ar.cause()));
            tracker.enqueueAnswered(false);
          }
        });
  }
}

package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Enqueues pre-built bulk bodies over N lanes, each lane one keep-alive connection with exactly
 * one request in flight, so "4 lanes" means "4 requests in flight" and nothing else.
 * Lanes pull the next batch from a shared counter, so a slow answer on one lane does not hold
 * back the others.
 */
final class BulkEnqueuer {

  private final List<Buffer> bodies;
  private final int jobs;
  private final int batchSize;
  private final List<Lane> lanes = new ArrayList<>();
  private final AtomicInteger nextBatch = new AtomicInteger();
  private final AtomicBoolean failed = new AtomicBoolean();
  /** Jobs whose bulk request has been answered with 201, for progress reports. */
  private final AtomicLong enqueued = new AtomicLong();

  BulkEnqueuer(List<Buffer> bodies, int jobs, int batchSize) {
    this.bodies = bodies;
    this.jobs = jobs;
    this.batchSize = batchSize;
  }

  void connect(List<Context> contexts, HttpClientAgent connector, Endpoint endpoint, long timeoutSec) {
    List<Future<?>> connecting = new ArrayList<>();
    for (Context ctx : contexts) {
      Lane lane = new Lane(ctx);
      lanes.add(lane);
      connecting.add(ClientKit.connect(ctx, connector, endpoint)
          .compose(c -> {
            lane.conn = c;
            return ClientKit.probe(c);
          }));
    }
    Await.result(Future.all(connecting), timeoutSec, TimeUnit.SECONDS, "connecting enqueue lanes");
  }

  /** @return nanoseconds from the first send to the last 201 */
  long run(long timeoutSec) {
    return run(timeoutSec, 0, null);
  }

  /**
   * Like {@link #run(long)}, calling {@code progress} with the number of jobs enqueued so far
   * every {@code everyMillis} until done: for enqueues long enough that silence looks like a hang.
   */
  long run(long timeoutSec, long everyMillis, LongConsumer progress) {
    List<Future<?>> finished = new ArrayList<>();
    long start = System.nanoTime();
    for (Lane lane : lanes) {
      finished.add(lane.done.future());
      lane.ctx.runOnContext(v -> lane.next());
    }
    Future<?> all = Future.all(finished);
    try {
      if (progress != null) {
        long deadline = start + TimeUnit.SECONDS.toNanos(timeoutSec);
        while (!all.isComplete() && System.nanoTime() < deadline) {
          long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
          Await.quietly(all, Math.max(1, Math.min(everyMillis, leftMillis)));
          if (!all.isComplete()) {
            progress.accept(enqueued.get());
          }
        }
        if (!all.isComplete()) {
          throw new BenchFailure("bulk enqueue did not finish within " + timeoutSec + " s ("
              + enqueued.get() + " of " + jobs + " jobs enqueued)");
        }
      }
      Await.result(all, timeoutSec, TimeUnit.SECONDS, "bulk enqueue");
    } finally {
      failed.set(true); // stops the other lanes if one failed or the wait timed out
    }
    long last = start;
    for (Lane lane : lanes) {
      last = Math.max(last, lane.lastAnswer);
    }
    return last - start;
  }

  int requests() {
    return bodies.size();
  }

  void close() {
    List<Future<?>> closing = new ArrayList<>();
    for (Lane lane : lanes) {
      HttpClientConnection c = lane.conn;
      lane.conn = null; // makes close() idempotent
      if (c != null) {
        closing.add(ClientKit.onContext(lane.ctx, c::close));
      }
    }
    Await.quietly(Future.join(closing), 5_000);
  }

  private final class Lane {
    final Context ctx;
    final Promise<Void> done = Promise.promise();
    HttpClientConnection conn;
    volatile long lastAnswer;

    Lane(Context ctx) {
      this.ctx = ctx;
    }

    void next() {
      int index = nextBatch.getAndIncrement();
      if (failed.get() || index >= bodies.size()) {
        done.tryComplete();
        return;
      }
      int expected = JobBodies.batchJobs(jobs, batchSize, index);
      conn.request(HttpMethod.POST, "/jobs/bulk")
          .compose(req -> req.putHeader("Content-Type", "application/json").send(bodies.get(index)))
          .compose(resp -> resp.body().map(body -> {
            if (resp.statusCode() != 201) {
              throw new BenchFailure("POST /jobs/bulk answered " + resp.statusCode() + ": " + Snippet.of(body));
            }
            byte[] bytes = body.getBytes();
            int listed = JobLineScanner.countIdKeys(bytes, 0, bytes.length);
            if (listed != expected) {
              throw new BenchFailure("POST /jobs/bulk answer lists " + listed + " ids for " + expected + " jobs");
            }
            return null;
          }))
          .onComplete(ar -> {
            if (ar.failed()) {
              failed.set(true);
              done.tryFail(ar.cause());
            } else {
              lastAnswer = System.nanoTime();
              enqueued.addAndGet(expected);
              next();
            }
          });
    }
  }
}

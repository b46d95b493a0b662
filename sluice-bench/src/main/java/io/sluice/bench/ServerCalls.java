package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Blocking setup and inspection requests for the budget workloads (create budgets, count and
 * delete jobs). Never on a measured path. Every unexpected answer becomes a {@link BenchFailure}
 * quoting the server's status and body, so a server that does not (yet) accept a request is
 * reported as such instead of producing meaningless figures.
 */
final class ServerCalls implements AutoCloseable {

  /** One request: method, path with query, JSON body or null. */
  record Call(HttpMethod method, String uri, String body) {
    @Override
    public String toString() {
      return method.name() + " " + uri;
    }
  }

  record Answer(int status, String body) {}

  private final Context ctx;
  private final HttpClientAgent client;
  private final long timeoutSec;

  ServerCalls(ClientKit kit, Endpoint endpoint, int maxConnections, long timeoutSec) {
    this.ctx = kit.context(0);
    this.client = kit.pooledClient(endpoint, maxConnections);
    this.timeoutSec = timeoutSec;
  }

  /** {@code PUT /budgets/{key}} with a policy body; the spec answers 200 for create and replace. */
  void putBudget(String key, String policyJson) {
    expect(new Call(HttpMethod.PUT, "/budgets/" + key, policyJson), 200);
  }

  /** Sends one request and returns whatever the server answered. */
  Answer call(Call c) {
    return Await.result(ClientKit.onContext(ctx, () -> send(c)), timeoutSec, TimeUnit.SECONDS, c.toString());
  }

  /** Sends one request; any status but the expected ones fails with the server's answer. */
  Answer expect(Call c, int... statuses) {
    Answer a = call(c);
    if (contains(statuses, a.status())) {
      return a;
    }
    throw new BenchFailure(c + " answered " + a.status() + ": " + Snippet.of(Buffer.buffer(a.body())));
  }

  /**
   * Sends {@code n} requests with at most {@code inFlight} outstanding (so a server that commits
   * each durably can group its commits), stopping at the first unexpected answer.
   */
  void expectAll(int n, IntFunction<Call> calls, int inFlight, String what, int... expectedStatuses) {
    AtomicInteger next = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    List<Future<?>> lanes = new ArrayList<>();
    for (int i = 0; i < Math.min(inFlight, n); i++) {
      Promise<Void> lane = Promise.promise();
      lanes.add(lane.future());
      ctx.runOnContext(v -> nextOnLane(next, stop, n, calls, expectedStatuses, lane));
    }
    try {
      Await.result(Future.all(lanes), timeoutSec + n / 100, TimeUnit.SECONDS, what);
    } finally {
      stop.set(true);
    }
  }

  private void nextOnLane(AtomicInteger next, AtomicBoolean stop, int n, IntFunction<Call> calls,
      int[] expectedStatuses, Promise<Void> lane) {
    int i = next.getAndIncrement();
    if (stop.get() || i >= n) {
      lane.tryComplete();
      return;
    }
    Call c = calls.apply(i);
    send(c).onComplete(ar -> {
      if (ar.failed()) {
        stop.set(true);
        lane.tryFail(new BenchFailure(c + " failed: " + ar.cause(), ar.cause()));
      } else if (!contains(expectedStatuses, ar.result().status())) {
        stop.set(true);
        lane.tryFail(new BenchFailure(c + " answered " + ar.result().status() + ": "
            + Snippet.of(Buffer.buffer(ar.result().body()))));
      } else {
        nextOnLane(next, stop, n, calls, expectedStatuses, lane);
      }
    });
  }

  private static boolean contains(int[] statuses, int status) {
    for (int s : statuses) {
      if (s == status) {
        return true;
      }
    }
    return false;
  }

  private Future<Answer> send(Call c) {
    return client.request(c.method(), c.uri())
        .compose(req -> {
          if (c.body() == null) {
            return req.send();
          }
          return req.putHeader("Content-Type", "application/json").send(c.body());
        })
        .compose(resp -> resp.body().map(b -> new Answer(resp.statusCode(), b.toString())));
  }

  @Override
  public void close() {
    Await.quietly(client.close(), 5_000);
  }
}

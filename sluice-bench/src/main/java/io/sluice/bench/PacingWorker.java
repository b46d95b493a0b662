package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpMethod;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * A single worker for budget-pacing: one take stream, one ack connection, every job acked
 * individually ({@code POST /jobs/{id}/success}) the moment it arrives. Records, in arrival
 * order, when each of the run's jobs arrived, when its ack was sent, and when the server says it
 * dispatched it ({@code dequeued_at}).
 *
 * <p>Acks go out one at a time on their own keep-alive connection; one that arrives while
 * another is outstanding waits, and its "sent" instant is when it really leaves. With the
 * workloads' pacing (one job per 10 ms, or one in flight at a time) that queue stays empty.
 */
final class PacingWorker implements TakeStream.JobSink {

  private record PendingAck(String id, int index) {}

  private final Context ctx;
  private final int jobs;
  private final TakeStream stream;
  private final Promise<Void> done = Promise.promise();

  private volatile HttpClientConnection ackConn;

  // Event-loop-confined; read by the main thread only after done() completed and the stream closed.
  private final long[] receipts;
  private final long[] ackSent;
  private final long[] dispatchedMs;
  private final int[] deliveries;
  private final ArrayDeque<PendingAck> acks = new ArrayDeque<>();
  private boolean ackInFlight;
  private int received;
  private int duplicates;
  private int strays;

  PacingWorker(Context ctx, String nonce, int jobs) {
    this.ctx = ctx;
    this.jobs = jobs;
    this.stream = new TakeStream(ctx, nonce, this);
    this.receipts = new long[jobs];
    this.ackSent = new long[jobs];
    this.dispatchedMs = new long[jobs];
    this.deliveries = new int[jobs];
  }

  Future<Void> connect(HttpClientAgent connector, Endpoint endpoint) {
    return stream.connect(connector, endpoint)
        .compose(v -> ClientKit.connect(ctx, connector, endpoint))
        .compose(c -> {
          ackConn = c;
          return ClientKit.probe(c);
        });
  }

  Future<Void> open(String queue, int prefetch) {
    stream.broken().onFailure(done::tryFail);
    return stream.open(queue, prefetch);
  }

  /** Completes once every job arrived and every ack was answered; fails on a bad answer or a broken stream. */
  Future<Void> done() {
    return done.future();
  }

  Future<Void> close() {
    Future<Void> s = stream.close();
    HttpClientConnection c = ackConn;
    ackConn = null;
    Future<Void> a = c == null ? Future.succeededFuture() : ClientKit.onContext(ctx, c::close);
    return Future.join(s, a).mapEmpty();
  }

  /** Arrival instants (nanoTime) of the run's jobs, in arrival order; only the first {@link #received()}. */
  long[] receipts() {
    return Arrays.copyOf(receipts, received);
  }

  /** When the ack of the i-th arrival was sent (nanoTime). */
  long[] ackSent() {
    return Arrays.copyOf(ackSent, received);
  }

  /** The server's dispatch instants ({@code dequeued_at}, epoch ms) of the run's jobs, in arrival order. */
  long[] dispatchedMs() {
    return Arrays.copyOf(dispatchedMs, received);
  }

  int received() {
    return received;
  }

  int duplicates() {
    return duplicates;
  }

  int strays() {
    return strays;
  }

  @Override
  public void onJob(String id, int seq) {
    long now = System.nanoTime();
    int index = -1;
    if (seq < 0 || seq >= jobs) {
      strays++; // a leftover from elsewhere on a shared server: acked, not measured
    } else if (deliveries[seq]++ > 0) {
      duplicates++;
    } else {
      index = received++;
      receipts[index] = now;
      dispatchedMs[index] = stream.currentDequeuedAtMs();
    }
    acks.add(new PendingAck(id, index));
    if (!ackInFlight) {
      sendNextAck();
    }
  }

  private void sendNextAck() {
    PendingAck p = acks.poll();
    HttpClientConnection conn = ackConn;
    if (p == null || conn == null) {
      return;
    }
    ackInFlight = true;
    long sent = System.nanoTime();
    if (p.index() >= 0) {
      ackSent[p.index()] = sent;
    }
    conn.request(HttpMethod.POST, "/jobs/" + p.id() + "/success")
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(b -> {
          if (resp.statusCode() != 204 && resp.statusCode() != 200) {
            throw new BenchFailure("POST /jobs/" + p.id() + "/success answered " + resp.statusCode() + ": "
                + Snippet.of(b));
          }
          return null;
        }))
        .onComplete(ar -> {
          ackInFlight = false;
          if (ar.failed()) {
            done.tryFail(ar.cause() instanceof BenchFailure ? ar.cause()
                : new BenchFailure("ack request failed: " + ar.cause(), ar.cause()));
            return;
          }
          if (!acks.isEmpty()) {
            sendNextAck();
          } else if (received == jobs) {
            done.tryComplete();
          }
        });
  }
}

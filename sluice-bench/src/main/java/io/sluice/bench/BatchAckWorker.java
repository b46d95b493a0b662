package io.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * A throughput-drain worker: one take stream plus one ack connection, acking in batches.
 *
 * <p>Batching rule: everything received in one event-loop turn goes into one
 * {@code POST /jobs/success}; at most one such request is in flight, and ids arriving meanwhile
 * wait for the next one. "End of turn" is implemented by scheduling the flush with
 * {@code runOnContext}, which Netty runs after the current batch of socket reads.
 *
 * <p>The stream is opened before the drain clock starts and the worker holds what it receives
 * until {@link #go()}, so the measured drain excludes stream setup and starts from a state where
 * every stream already has its prefetch window filled, i.e. steady state.
 */
final class BatchAckWorker implements TakeStream.JobSink {

  /** Told the arrival instant of every delivery, on the worker's event loop. */
  interface ReceiptHook {
    void received(int seq, long nanos);
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Context ctx;
  private final DrainTracker tracker;
  private final TakeStream stream;
  private final Handler<Void> flushTask = v -> flush();
  private final ReceiptHook receiptHook;

  private volatile HttpClientConnection ackConn;

  // Event-loop-confined state below; two sets of arrays swapped between "pending" and "in flight".
  private String[] pendingIds = new String[64];
  private int[] pendingSeqs = new int[64];
  private int pendingCount;
  private int pendingFirstDeliveries;
  private String[] flightIds = new String[64];
  private int[] flightSeqs = new int[64];
  private int flightCount;
  private boolean ackInFlight;
  private boolean flushScheduled;
  private boolean armed;
  /** Deliveries held before go(); written on the event loop, polled by the main thread. */
  private volatile int heldBeforeGo;
  private long ackRequests;

  BatchAckWorker(Context ctx, DrainTracker tracker, String nonce) {
    this(ctx, tracker, nonce, null);
  }

  /** @param receiptHook told of each delivery as it arrives, or null */
  BatchAckWorker(Context ctx, DrainTracker tracker, String nonce, ReceiptHook receiptHook) {
    this.ctx = ctx;
    this.tracker = tracker;
    this.stream = new TakeStream(ctx, nonce, this);
    this.receiptHook = receiptHook;
  }

  Future<Void> connect(HttpClientAgent connector, Endpoint endpoint) {
    return stream.connect(connector, endpoint)
        .compose(v -> ClientKit.connect(ctx, connector, endpoint))
        .compose(c -> {
          ackConn = c;
          return ClientKit.probe(c);
        });
  }

  /** Opens the take stream; received jobs are held, not acked, until {@link #go()}. */
  Future<Void> open(String queue, int prefetch) {
    stream.broken().onFailure(tracker::fail);
    return stream.open(queue, prefetch);
  }

  int heldBeforeGo() {
    return heldBeforeGo;
  }

  /** Starts acking: everything held so far goes out as the first batch. */
  void go() {
    ctx.runOnContext(v -> {
      armed = true;
      flush();
    });
  }

  Future<Void> close() {
    Future<Void> s = stream.close();
    HttpClientConnection c = ackConn;
    ackConn = null; // makes close() idempotent
    Future<Void> a = c == null ? Future.succeededFuture() : ClientKit.onContext(ctx, c::close);
    return Future.join(s, a).mapEmpty();
  }

  TakeStream stream() {
    return stream;
  }

  long ackRequests() {
    return ackRequests;
  }

  @Override
  public void onJob(String id, int seq) {
    if (receiptHook != null) {
      receiptHook.received(seq, System.nanoTime());
    }
    boolean first = tracker.delivered(seq);
    if (pendingCount == pendingIds.length) {
      pendingIds = Arrays.copyOf(pendingIds, pendingCount * 2);
      pendingSeqs = Arrays.copyOf(pendingSeqs, pendingCount * 2);
    }
    pendingIds[pendingCount] = id;
    pendingSeqs[pendingCount] = seq;
    pendingCount++;
    if (first) {
      pendingFirstDeliveries++;
    }
    if (!armed) {
      heldBeforeGo = pendingCount;
      return;
    }
    if (!ackInFlight && !flushScheduled) {
      flushScheduled = true;
      ctx.runOnContext(flushTask);
    }
  }

  private void flush() {
    flushScheduled = false;
    HttpClientConnection conn = ackConn;
    if (ackInFlight || pendingCount == 0 || conn == null) { // null: closed after the drain finished
      return;
    }
    Buffer body = Buffer.buffer(pendingCount * 32 + 16);
    body.appendString("{\"ids\":[");
    for (int i = 0; i < pendingCount; i++) {
      if (i > 0) {
        body.appendByte((byte) ',');
      }
      body.appendByte((byte) '"').appendString(pendingIds[i]).appendByte((byte) '"');
    }
    body.appendString("]}");

    String[] ids = flightIds;
    int[] seqs = flightSeqs;
    flightIds = pendingIds;
    flightSeqs = pendingSeqs;
    flightCount = pendingCount;
    pendingIds = ids;
    pendingSeqs = seqs;
    tracker.submitted(pendingCount, pendingFirstDeliveries);
    pendingCount = 0;
    pendingFirstDeliveries = 0;

    ackInFlight = true;
    ackRequests++;
    conn.request(HttpMethod.POST, "/jobs/success")
        .compose(req -> req.putHeader("Content-Type", "application/json").send(body))
        .compose(resp -> resp.body().map(b -> {
          onAckAnswer(resp.statusCode(), b);
          return null;
        }))
        .onComplete(ar -> {
          ackInFlight = false;
          if (ar.failed()) {
            tracker.fail(ar.cause() instanceof BenchFailure ? ar.cause()
                : new BenchFailure("bulk ack request failed: " + ar.cause(), ar.cause()));
            return;
          }
          if (pendingCount > 0) {
            flush();
          }
        });
  }

  private void onAckAnswer(int status, Buffer body) {
    int n = flightCount;
    if (status == 204 || status == 200) {
      for (int i = 0; i < n; i++) {
        tracker.ackConfirmed(flightSeqs[i]);
      }
    } else if (status == 422) {
      Set<String> missing = notFoundIds(body);
      int notFound = 0;
      for (int i = 0; i < n; i++) {
        if (missing.contains(flightIds[i])) {
          notFound++;
        } else {
          tracker.ackConfirmed(flightSeqs[i]);
        }
      }
      tracker.ackNotFound(notFound);
    } else {
      throw new BenchFailure("bulk ack answered " + status + ": " + Snippet.of(body));
    }
    // Drop references so acked ids can be collected.
    Arrays.fill(flightIds, 0, n, null);
    flightCount = 0;
    tracker.answered(n);
  }

  private static Set<String> notFoundIds(Buffer body) {
    Set<String> ids = new HashSet<>();
    try {
      JsonNode list = JSON.readTree(body.getBytes()).path("not_found");
      for (JsonNode id : list) {
        ids.add(id.asText());
      }
    } catch (IOException e) {
      throw new BenchFailure("bulk ack answered 422 with unreadable body: " + Snippet.of(body));
    }
    return ids;
  }
}

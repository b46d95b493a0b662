package io.sluice.bench.torture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.bench.Endpoint;
import io.sluice.bench.TakeStream;
import io.sluice.bench.torture.Ledger.Kind;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One worker of a generation: a take stream with prefetch, and acks or failure reports sent
 * through its own pooled client. Each delivered job is held for a random 0 to {@code holdMs} ms
 * (so jobs are in flight when the server is killed), then failed with {@code retry_at} now (with
 * probability {@code failPercent}, only on its first {@value #MAX_FAILED_ATTEMPTS} attempts so
 * every job ends) or acked: one {@code POST /jobs/{id}/success} per job, or, for a bulk worker,
 * one {@code POST /jobs/success} for all jobs finished within {@value #FLUSH_MS} ms.
 *
 * <p>Confined to its context: deliveries, timers and answers all run there. Every observation
 * goes to the ledger before the request counts as ended.
 */
final class Worker implements TakeStream.JobSink {

  static final int MAX_FAILED_ATTEMPTS = 2;
  private static final long FLUSH_MS = 5;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Context ctx;
  private final HttpClientAgent acks;
  private final Ledger ledger;
  private final Requests requests;
  private final int gen;
  private final boolean bulk;
  private final int holdMs;
  private final int failPercent;
  private final InstantSource clock;
  private final TakeStream stream;

  private final List<String> pendingIds = new ArrayList<>();
  private final List<Integer> pendingSeqs = new ArrayList<>();
  private boolean flushScheduled;

  Worker(Context ctx, HttpClientAgent acks, Ledger ledger, Requests requests, int gen, String nonce, boolean bulk,
      int holdMs, int failPercent, InstantSource clock) {
    this.ctx = ctx;
    this.acks = acks;
    this.ledger = ledger;
    this.requests = requests;
    this.gen = gen;
    this.bulk = bulk;
    this.holdMs = holdMs;
    this.failPercent = failPercent;
    this.clock = clock;
    this.stream = new TakeStream(ctx, nonce, this);
  }

  /** Connects and opens the take stream; jobs flow as soon as it completes. */
  Future<Void> open(HttpClientAgent connector, Endpoint endpoint, int prefetch) {
    return stream.connect(connector, endpoint).compose(v -> stream.open(ProducerLane.QUEUE, prefetch));
  }

  /** Fails when the stream ends or breaks, which a killed server does on purpose. */
  Future<Void> broken() {
    return stream.broken();
  }

  Future<Void> close() {
    return stream.close();
  }

  @Override
  public void onJob(String id, int seq) {
    int attempts = (int) stream.currentAttempts();
    ledger.record(gen, Kind.DELIVERED, seq, id, attempts);
    if (requests.stopped()) {
      return;
    }
    long hold = 1 + ThreadLocalRandom.current().nextInt(holdMs + 1);
    ctx.owner().setTimer(hold, t -> finish(id, seq, attempts));
  }

  private void finish(String id, int seq, int attempts) {
    if (attempts < MAX_FAILED_ATTEMPTS && ThreadLocalRandom.current().nextInt(100) < failPercent) {
      fail(id, seq);
    } else if (bulk) {
      pendingIds.add(id);
      pendingSeqs.add(seq);
      if (!flushScheduled) {
        flushScheduled = true;
        ctx.owner().setTimer(FLUSH_MS, t -> flush());
      }
    } else {
      ack(id, seq);
    }
  }

  private void ack(String id, int seq) {
    if (!requests.begin()) {
      return;
    }
    acks.request(HttpMethod.POST, "/jobs/" + id + "/success")
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(b -> resp.statusCode()))
        .onComplete(ar -> {
          if (ar.failed()) {
            ledger.record(gen, Kind.ACK_UNANSWERED, seq, id, 0);
          } else if (ar.result() == 204) {
            ledger.record(gen, Kind.ACK_ACKED, seq, id, 0);
          } else {
            ledger.record(gen, Kind.ACK_REJECTED, seq, id, ar.result());
          }
          requests.end();
        });
  }

  private void flush() {
    flushScheduled = false;
    if (pendingIds.isEmpty() || !requests.begin()) {
      return;
    }
    List<String> ids = List.copyOf(pendingIds);
    List<Integer> seqs = List.copyOf(pendingSeqs);
    pendingIds.clear();
    pendingSeqs.clear();
    Buffer body = Buffer.buffer(ids.size() * 28 + 16).appendString("{\"ids\":[");
    for (int i = 0; i < ids.size(); i++) {
      body.appendString(i == 0 ? "\"" : ",\"").appendString(ids.get(i)).appendString("\"");
    }
    body.appendString("]}");
    acks.request(HttpMethod.POST, "/jobs/success")
        .compose(req -> req.putHeader("Content-Type", "application/json").send(body))
        .compose(resp -> resp.body().map(b -> {
          onBulkAnswer(resp.statusCode(), b, ids, seqs);
          return null;
        }))
        .onComplete(ar -> {
          if (ar.failed()) {
            for (int i = 0; i < ids.size(); i++) {
              ledger.record(gen, Kind.ACK_UNANSWERED, seqs.get(i), ids.get(i), 0);
            }
          }
          requests.end();
        });
  }

  /** 204: all acked; 422: all but the {@code not_found} ones (API.md §8.6); anything else: none. */
  private void onBulkAnswer(int status, Buffer answer, List<String> ids, List<Integer> seqs) {
    Set<String> notFound = status == 422 ? notFound(answer, ids) : Set.of();
    for (int i = 0; i < ids.size(); i++) {
      boolean acked = (status == 204 || status == 422) && !notFound.contains(ids.get(i));
      if (acked) {
        ledger.record(gen, Kind.ACK_ACKED, seqs.get(i), ids.get(i), 0);
      } else {
        ledger.record(gen, Kind.ACK_REJECTED, seqs.get(i), ids.get(i), status);
      }
    }
  }

  /** The ids a 422 names; all of them when its body cannot be read, so none counts as acked by mistake. */
  private static Set<String> notFound(Buffer answer, List<String> sent) {
    Set<String> ids = new HashSet<>();
    try {
      JsonNode list = JSON.readTree(answer.getBytes()).path("not_found");
      if (list.isArray()) {
        list.forEach(id -> ids.add(id.asText()));
        return ids;
      }
    } catch (IOException e) {
      // Falls through: treated as naming every id.
    }
    return Set.copyOf(sent);
  }

  private void fail(String id, int seq) {
    if (!requests.begin()) {
      return;
    }
    String body = "{\"message\":\"torture\",\"retry_at\":" + clock.millis() + "}";
    acks.request(HttpMethod.POST, "/jobs/" + id + "/failure")
        .compose(req -> req.putHeader("Content-Type", "application/json").send(body))
        .compose(resp -> resp.body().map(b -> {
          int status = resp.statusCode();
          int attempts = status == 200 ? attemptsIn(b) : -1;
          if (attempts >= 0) {
            ledger.record(gen, Kind.FAILURE_ACKED, seq, id, attempts);
          } else {
            ledger.record(gen, Kind.FAILURE_REJECTED, seq, id, status);
          }
          return null;
        }))
        .onComplete(ar -> {
          if (ar.failed()) {
            ledger.record(gen, Kind.FAILURE_UNANSWERED, seq, id, 0);
          }
          requests.end();
        });
  }

  private static int attemptsIn(Buffer answer) {
    try {
      JsonNode attempts = JSON.readTree(answer.getBytes()).path("attempts");
      return attempts.canConvertToInt() ? attempts.asInt() : -1;
    } catch (IOException e) {
      return -1;
    }
  }
}

package io.sluice.bench.torture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.bench.torture.Ledger.Kind;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One closed-loop enqueue lane of a generation: one request at a time, either {@code POST /jobs}
 * or {@code POST /jobs/bulk} with 2 to {@code maxBulk} jobs, recording every answer in the
 * ledger. Runs on its context; pauses while the server's backlog exceeds {@code maxBacklog}, so
 * producers cannot outrun the workers and make every restart slower than the last.
 */
final class ProducerLane {

  static final String QUEUE = "torture";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long BACKLOG_PAUSE_MS = 10;
  /** After a failed request (the server is gone), so a lane does not spin until it is stopped. */
  private static final long FAILURE_PAUSE_MS = 50;

  private final Context ctx;
  private final HttpClientAgent client;
  private final Ledger ledger;
  private final Requests requests;
  private final int gen;
  private final String nonce;
  private final int maxBulk;
  private final int maxBacklog;

  /** @param maxBulk 1 for a lane of single enqueues */
  ProducerLane(Context ctx, HttpClientAgent client, Ledger ledger, Requests requests, int gen, String nonce,
      int maxBulk, int maxBacklog) {
    this.ctx = ctx;
    this.client = client;
    this.ledger = ledger;
    this.requests = requests;
    this.gen = gen;
    this.nonce = nonce;
    this.maxBulk = maxBulk;
    this.maxBacklog = maxBacklog;
  }

  void start() {
    ctx.runOnContext(v -> next());
  }

  /** The job body for {@code seq}: its payload carries the run's nonce and the sequence number. */
  static String jobJson(String nonce, int seq) {
    return "{\"type\":\"torture\",\"queue\":\"" + QUEUE + "\",\"payload\":{\"nonce\":\"" + nonce + "\",\"seq\":"
        + seq + "}}";
  }

  private void next() {
    if (ledger.backlog() > maxBacklog) {
      later(BACKLOG_PAUSE_MS);
      return;
    }
    if (!requests.begin()) {
      return;
    }
    boolean single = maxBulk == 1;
    int n = single ? 1 : 2 + ThreadLocalRandom.current().nextInt(maxBulk - 1);
    int first = ledger.reserve(n);
    Buffer body = Buffer.buffer(n * 90 + 16);
    if (single) {
      body.appendString(jobJson(nonce, first));
    } else {
      body.appendString("{\"jobs\":[");
      for (int i = 0; i < n; i++) {
        body.appendString(i == 0 ? "" : ",").appendString(jobJson(nonce, first + i));
      }
      body.appendString("]}");
    }
    client.request(HttpMethod.POST, single ? "/jobs" : "/jobs/bulk")
        .compose(req -> req.putHeader("Content-Type", "application/json").send(body))
        .compose(resp -> resp.body().map(answer -> {
          onAnswer(resp.statusCode(), answer, single, first, n);
          return null;
        }))
        .onComplete(ar -> {
          if (ar.failed()) {
            for (int i = 0; i < n; i++) {
              ledger.record(gen, Kind.ENQUEUE_UNANSWERED, first + i, null, 0);
            }
          }
          // Only after recording: the main thread reads the ledger once nothing is in flight.
          requests.end();
          if (ar.failed()) {
            later(FAILURE_PAUSE_MS);
          } else {
            next();
          }
        });
  }

  private void later(long delayMs) {
    if (!requests.stopped()) {
      ctx.owner().setTimer(delayMs, t -> next());
    }
  }

  /** Records the answer; a 201 whose ids cannot be read counts as rejected, never as acknowledged. */
  private void onAnswer(int status, Buffer answer, boolean single, int first, int n) {
    String[] ids = status == 201 ? ids(answer, single, n) : null;
    for (int i = 0; i < n; i++) {
      if (ids != null) {
        ledger.record(gen, Kind.ENQUEUE_ACKED, first + i, ids[i], 0);
      } else {
        ledger.record(gen, Kind.ENQUEUE_REJECTED, first + i, null, status);
      }
    }
  }

  private static String[] ids(Buffer answer, boolean single, int n) {
    try {
      JsonNode root = JSON.readTree(answer.getBytes());
      JsonNode jobs = single ? JSON.createArrayNode().add(root) : root.path("jobs");
      if (!jobs.isArray() || jobs.size() != n) {
        return null;
      }
      String[] ids = new String[n];
      for (int i = 0; i < n; i++) {
        JsonNode id = jobs.get(i).path("id");
        if (!id.isTextual()) {
          return null;
        }
        ids[i] = id.asText();
      }
      return ids;
    } catch (IOException e) {
      return null;
    }
  }
}

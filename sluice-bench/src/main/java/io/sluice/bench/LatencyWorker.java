package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import org.HdrHistogram.Histogram;

/**
 * A latency-workload worker: one take stream; stamps each arriving job against its send time,
 * then acks it individually with {@code POST /jobs/{id}/success}.
 *
 * <p>Each worker records into its own histogram (HdrHistogram is not thread-safe and workers live
 * on different event loops); the workload merges them once everything is closed.
 */
final class LatencyWorker implements TakeStream.JobSink {

  private final LatencyTracker tracker;
  private final HttpClientAgent ackClient;
  private final TakeStream stream;
  private final Histogram endToEnd = new Histogram(3);

  LatencyWorker(Context ctx, LatencyTracker tracker, HttpClientAgent ackClient, String nonce) {
    this.tracker = tracker;
    this.ackClient = ackClient;
    this.stream = new TakeStream(ctx, nonce, this);
  }

  TakeStream stream() {
    return stream;
  }

  /** Only read after the stream is closed. */
  Histogram histogram() {
    return endToEnd;
  }

  @Override
  public void onJob(String id, int seq) {
    long now = System.nanoTime();
    long sent = tracker.delivered(seq);
    if (sent != 0) {
      endToEnd.recordValue(Math.max(0, now - sent));
    }
    ackClient.request(HttpMethod.POST, "/jobs/" + id + "/success")
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(b -> resp.statusCode()))
        .onComplete(ar -> tracker.ackAnswered(ar.succeeded() && (ar.result() == 204 || ar.result() == 200)));
  }

  Future<Void> close() {
    return stream.close();
  }
}

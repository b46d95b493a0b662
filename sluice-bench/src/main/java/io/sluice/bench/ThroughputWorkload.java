package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Workload (a): bulk-enqueue N jobs, then drain them with take streams and batched acks, timing
 * each phase separately and checking that every job came back exactly once and was acked.
 */
final class ThroughputWorkload {

  /** Late deliveries after the last ack are still counted, so watch the streams a little longer. */
  private static final long GRACE_MILLIS = 250;
  private static final long CONNECT_TIMEOUT_SEC = 15;

  private final BenchOptions opt;
  private final ClientKit kit;
  private final Endpoint endpoint;

  ThroughputWorkload(BenchOptions opt, ClientKit kit, Endpoint endpoint) {
    this.opt = opt;
    this.kit = kit;
    this.endpoint = endpoint;
  }

  ThroughputResult run(String nonce) {
    String queue = opt.queue();
    List<Buffer> bodies = new JobBodies(queue, nonce, opt.payloadBytes()).bulk(opt.jobs(), opt.batch());
    HttpClientAgent connector = kit.connector();
    BulkEnqueuer enqueuer = new BulkEnqueuer(bodies, opt.jobs(), opt.batch());
    DrainTracker tracker = new DrainTracker(opt.jobs());
    List<BatchAckWorker> workers = new ArrayList<>();
    try {
      enqueuer.connect(contexts(opt.lanes()), connector, endpoint, CONNECT_TIMEOUT_SEC);
      long enqueueNanos = enqueuer.run(opt.phaseTimeoutSec());
      enqueuer.close();

      List<Future<?>> connecting = new ArrayList<>();
      for (Context ctx : contexts(opt.workers())) {
        BatchAckWorker w = new BatchAckWorker(ctx, tracker, nonce);
        workers.add(w);
        connecting.add(w.connect(connector, endpoint));
      }
      Await.result(Future.all(connecting), CONNECT_TIMEOUT_SEC, TimeUnit.SECONDS, "connecting drain workers");

      long go = System.nanoTime();
      for (BatchAckWorker w : workers) {
        // Start failures (e.g. a 404 on take) surface through the tracker so the wait below ends.
        w.start(queue, opt.prefetch()).onFailure(tracker::fail);
      }
      long end;
      try {
        end = Await.result(tracker.done(), opt.phaseTimeoutSec(), TimeUnit.SECONDS, "drain");
      } catch (BenchFailure e) {
        DrainTracker.Tally t = tracker.tally();
        throw new BenchFailure(e.getMessage() + " (" + t.received() + " of " + opt.jobs() + " jobs received, "
            + t.duplicates() + " duplicates, " + t.acked() + " acked)", e);
      }
      long drainNanos = end - go;

      sleep(GRACE_MILLIS);
      closeAll(workers);

      long ackRequests = 0;
      long heartbeats = 0;
      long foreign = 0;
      for (BatchAckWorker w : workers) {
        ackRequests += w.ackRequests();
        heartbeats += w.stream().heartbeats();
        foreign += w.stream().foreignLines();
      }
      return new ThroughputResult(opt.jobs(), opt.batch(), opt.lanes(), opt.workers(), opt.prefetch(),
          enqueueNanos, enqueuer.requests(), drainNanos, ackRequests, heartbeats, foreign, tracker.tally());
    } finally {
      enqueuer.close();
      closeAll(workers);
      Await.quietly(connector.close(), 5_000);
    }
  }

  private List<Context> contexts(int n) {
    List<Context> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(kit.context(i));
    }
    return list;
  }

  private static void closeAll(List<BatchAckWorker> workers) {
    List<Future<?>> closing = new ArrayList<>();
    for (BatchAckWorker w : workers) {
      closing.add(w.close());
    }
    Await.quietly(Future.join(closing), 5_000);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

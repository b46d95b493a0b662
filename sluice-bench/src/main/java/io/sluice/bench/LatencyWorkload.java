package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * Workload (b): idle workers already waiting on take streams, then single enqueues at a steady
 * open-loop rate; measures enqueue-send to worker-receive latency, and enqueue-send to 201.
 */
final class LatencyWorkload {

  private static final long CONNECT_TIMEOUT_SEC = 15;
  /**
   * How long to wait for a take stream's response head. A server may legitimately hold the head
   * back until the first job, so this wait is best effort, not a failure.
   */
  private static final long STREAM_READY_WAIT_SEC = 5;
  /** Enqueue connections opened before the clock so the first sends do not pay for TCP setup. */
  private static final int WARM_CONNECTIONS = 4;

  private final BenchOptions opt;
  private final ClientKit kit;
  private final Endpoint endpoint;
  private LongSupplier serverCpuNanos = () -> -1;

  LatencyWorkload(BenchOptions opt, ClientKit kit, Endpoint endpoint) {
    this.opt = opt;
    this.kit = kit;
    this.endpoint = endpoint;
  }

  /**
   * Reads the server process's CPU time (nanoseconds, negative when unknown) from the first send
   * until every job is received and acknowledged; returns this.
   */
  LatencyWorkload withServerCpu(LongSupplier cpuNanos) {
    this.serverCpuNanos = cpuNanos;
    return this;
  }

  LatencyResult run(String nonce) {
    int jobs = opt.latencyJobs();
    String queue = opt.latencyQueue();
    JobBodies factory = new JobBodies(queue, nonce, opt.payloadBytes());
    List<Buffer> bodies = new ArrayList<>(jobs);
    for (int seq = 0; seq < jobs; seq++) {
      bodies.add(factory.single(seq));
    }

    LatencyTracker tracker = new LatencyTracker(jobs);
    HttpClientAgent connector = kit.connector();
    HttpClientAgent enqueueClient = kit.pooledClient(endpoint, opt.pool());
    HttpClientAgent ackClient = kit.pooledClient(endpoint, Math.max(4, opt.workers() * 4));
    List<LatencyWorker> workers = new ArrayList<>();
    // The sender's state lives on a context of its own. With fewer event loops than contexts it
    // shares a loop with some workers, which is fine: a worker does microseconds of work per job.
    Context senderCtx = kit.context(opt.workers());
    OpenLoopEnqueuer sender = new OpenLoopEnqueuer(senderCtx, enqueueClient, bodies, opt.rate(), tracker);
    try {
      List<Future<?>> connecting = new ArrayList<>();
      for (int i = 0; i < opt.workers(); i++) {
        LatencyWorker w = new LatencyWorker(kit.context(i), tracker, ackClient, nonce);
        workers.add(w);
        connecting.add(w.stream().connect(connector, endpoint));
      }
      Await.result(Future.all(connecting), CONNECT_TIMEOUT_SEC, TimeUnit.SECONDS, "connecting latency workers");

      List<Future<?>> opening = new ArrayList<>();
      for (LatencyWorker w : workers) {
        w.stream().broken().onFailure(tracker::fail);
        Future<Void> opened = w.stream().open(queue, opt.prefetch());
        opened.onFailure(tracker::fail);
        opening.add(opened);
      }
      boolean streamsReady = waitForStreams(opening);
      openConnections(senderCtx, enqueueClient, WARM_CONNECTIONS, "enqueue");
      openConnections(kit.context(0), ackClient, opt.workers(), "ack");

      long serverCpu0 = serverCpuNanos.getAsLong();
      sender.start();
      long sendSeconds = (long) Math.ceil(jobs / opt.rate());
      try {
        Await.result(tracker.done(), sendSeconds + opt.phaseTimeoutSec(), TimeUnit.SECONDS, "latency workload");
      } catch (BenchFailure e) {
        Await.quietly(sender.stop(), 2_000);
        throw new BenchFailure(e.getMessage() + " (" + tracker.received() + " of " + jobs + " jobs received)", e);
      }

      long serverCpu = ThroughputWorkload.spent(serverCpu0, serverCpuNanos.getAsLong());
      closeAll(workers);
      Histogram e2e = new Histogram(3);
      for (LatencyWorker w : workers) {
        e2e.add(w.histogram());
      }
      // Reading the sender's fields from here is safe: the tracker completed after its last 201.
      return new LatencyResult(jobs, opt.rate(), sender.achievedRate(), sender.maxLagNanos(), opt.workers(),
          opt.prefetch(), streamsReady, e2e, sender.enqueueHistogram(), tracker.received(), tracker.duplicates(),
          tracker.strays(), tracker.ackErrors(), serverCpu);
    } finally {
      Await.quietly(sender.stop(), 2_000);
      closeAll(workers);
      Await.quietly(Future.join(connector.close(), enqueueClient.close(), ackClient.close()), 5_000);
    }
  }

  /** @return false if some stream head did not arrive in time (measurement continues anyway) */
  private boolean waitForStreams(List<Future<?>> opening) {
    try {
      Await.result(Future.all(opening), STREAM_READY_WAIT_SEC, TimeUnit.SECONDS, "opening take streams");
      return true;
    } catch (BenchFailure e) {
      for (Future<?> f : opening) {
        if (f.failed()) {
          throw e; // a real error (e.g. 404), not just a server that delays the response head
        }
      }
      return false;
    }
  }

  /** Concurrent probes make the pool open that many connections before the clock starts. */
  private static void openConnections(Context ctx, HttpClientAgent client, int connections, String purpose) {
    List<Future<?>> probes = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      probes.add(ClientKit.onContext(ctx, () -> client.request(HttpMethod.GET, "/health")
          .compose(req -> req.send())
          .compose(resp -> resp.body())));
    }
    Await.result(Future.all(probes), CONNECT_TIMEOUT_SEC, TimeUnit.SECONDS, "opening " + purpose + " connections");
  }

  private static void closeAll(List<LatencyWorker> workers) {
    List<Future<?>> closing = new ArrayList<>();
    for (LatencyWorker w : workers) {
      closing.add(w.close());
    }
    Await.quietly(Future.join(closing), 5_000);
  }
}

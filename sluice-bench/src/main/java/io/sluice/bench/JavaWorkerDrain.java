package io.sluice.bench;

import io.sluice.client.SluiceClient;
import io.sluice.client.SluiceException;
import io.sluice.client.Worker;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The drain of workload (a) done by the Java client's {@link Worker} instead of the bench's own
 * HTTP workers: the same bulk enqueue, then {@code --workers} workers, each with prefetch
 * {@code --prefetch} and {@code --worker-concurrency} handler threads, run a handler that maps
 * the payload and does nothing else.
 *
 * <p>As in (a), the drain clock starts from primed workers: every handler waits at a gate until
 * each worker's handler threads all hold a job, so starting threads and opening streams is not
 * draining.
 * It stops when no job of the pass is left unfinished on the server (counted once every handler
 * has run), so the last acks are inside the measured time, as (a)'s last ack answers are.
 */
final class JavaWorkerDrain {

  private static final long CONNECT_TIMEOUT_SEC = 15;
  private static final long PRIME_TIMEOUT_MILLIS = 10_000;

  /** The payload (a) sends, mapped by the worker as an application maps its own. */
  record BenchPayload(int seq, String nonce, String pad) {}

  private final BenchOptions opt;
  private final ClientKit kit;
  private final Endpoint endpoint;
  private LongSupplier serverCpuNanos = () -> -1;

  JavaWorkerDrain(BenchOptions opt, ClientKit kit, Endpoint endpoint) {
    this.opt = opt;
    this.kit = kit;
    this.endpoint = endpoint;
  }

  /** Reads the server's CPU time around the drain; returns this. */
  JavaWorkerDrain withServerCpu(LongSupplier cpuNanos) {
    this.serverCpuNanos = cpuNanos;
    return this;
  }

  Result run(String nonce) {
    long enqueueNanos = enqueue(nonce);
    return drain(nonce, enqueueNanos);
  }

  private long enqueue(String nonce) {
    List<Buffer> bodies = new JobBodies(opt.queue(), nonce, opt.payloadBytes()).bulk(opt.jobs(), opt.batch());
    HttpClientAgent connector = kit.connector();
    BulkEnqueuer enqueuer = new BulkEnqueuer(bodies, opt.jobs(), opt.batch());
    try {
      List<Context> lanes = new ArrayList<>();
      for (int i = 0; i < opt.lanes(); i++) {
        lanes.add(kit.context(i));
      }
      enqueuer.connect(lanes, connector, endpoint, CONNECT_TIMEOUT_SEC);
      return enqueuer.run(opt.phaseTimeoutSec());
    } finally {
      enqueuer.close();
      Await.quietly(connector.close(), 5_000);
    }
  }

  private Result drain(String nonce, long enqueueNanos) {
    int jobs = opt.jobs();
    DrainTracker tracker = new DrainTracker(jobs);
    LongAdder entered = new LongAdder();
    LongAdder handled = new LongAdder();
    CountDownLatch gate = new CountDownLatch(1);
    SluiceClient client = SluiceClient.builder(endpoint.url())
        .connectTimeout(Duration.ofSeconds(CONNECT_TIMEOUT_SEC)).build();
    List<Worker> workers = new ArrayList<>();
    try {
      for (int i = 0; i < opt.workers(); i++) {
        Worker worker = Worker.builder(client).queues(opt.queue())
            .concurrency(opt.javaWorkerConcurrency()).prefetch(opt.prefetch()).build();
        worker.handle("bench", BenchPayload.class, (payload, job) -> {
          entered.increment();
          gate.await();
          // As the raw drain tells them: another run's job (or an unknown one) is a stray.
          tracker.delivered(nonce.equals(payload.nonce()) ? payload.seq() : -1);
          handled.increment();
        });
        workers.add(worker);
      }
      workers.forEach(Worker::start);
      // A worker holds at most its prefetch, and its handlers hold at most their threads.
      long atGate = (long) opt.workers() * Math.min(opt.prefetch(), opt.javaWorkerConcurrency());
      boolean primed = awaitPrimed(entered, Math.min(jobs, atGate));

      long cpu0 = ProcessCpu.nanos();
      long serverCpu0 = serverCpuNanos.getAsLong();
      long go = System.nanoTime();
      gate.countDown();
      long deadline = go + TimeUnit.SECONDS.toNanos(opt.phaseTimeoutSec());
      awaitHandled(handled, jobs, deadline, tracker);
      awaitNoneUnfinished(client, deadline);
      long end = System.nanoTime();
      long drainServerCpu = ThroughputWorkload.spent(serverCpu0, serverCpuNanos.getAsLong());
      double drainCpu = ProcessCpu.percentOfOneCore(cpu0, ProcessCpu.nanos(), end - go);
      return new Result(jobs, enqueueNanos, primed, end - go, drainCpu, drainServerCpu,
          tracker.tally());
    } finally {
      gate.countDown();
      for (Worker worker : workers) {
        worker.shutdown(Duration.ofSeconds(10));
      }
    }
  }

  private static boolean awaitPrimed(LongAdder entered, long target) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PRIME_TIMEOUT_MILLIS);
    while (System.nanoTime() < deadline) {
      if (entered.sum() >= target) {
        return true;
      }
      sleep(1);
    }
    return false;
  }

  private static void awaitHandled(LongAdder handled, int jobs, long deadline,
      DrainTracker tracker) {
    while (handled.sum() < jobs) {
      if (System.nanoTime() > deadline) {
        throw new BenchFailure("drain by the Java worker timed out: " + handled.sum() + " of " + jobs
            + " handler calls, " + tracker.tally().received() + " distinct jobs");
      }
      sleep(1);
    }
  }

  /** Until the server counts no job of the queue scheduled, ready or in flight: all acked. */
  private void awaitNoneUnfinished(SluiceClient client, long deadline) {
    JobQuery unfinished = JobQuery.all().queues(opt.queue())
        .statuses(JobStatus.SCHEDULED, JobStatus.READY, JobStatus.IN_FLIGHT);
    while (true) {
      long left;
      try {
        left = client.jobs().count(unfinished);
      } catch (SluiceException e) {
        throw new BenchFailure("counting unfinished jobs after the Java worker's drain: " + e.getMessage(), e);
      }
      if (left == 0) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new BenchFailure("drain by the Java worker timed out: " + left + " jobs still unfinished");
      }
      sleep(1);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchFailure("interrupted");
    }
  }

  /** One pass: the enqueue, and the drain by Java workers, with exactly-once checked. */
  record Result(int jobs, long enqueueNanos, boolean primedBeforeGo, long drainNanos,
      double drainClientCpuPct, long drainServerCpuNanos, DrainTracker.Tally tally) {

    long received() {
      return tally.received();
    }

    long missing() {
      return tally.missing();
    }

    long duplicates() {
      return tally.duplicates();
    }

    long strays() {
      return tally.strays();
    }

    double drainRate() {
      return jobs / (drainNanos / 1e9);
    }

    boolean ok() {
      return missing() == 0 && duplicates() == 0;
    }

    String describe() {
      return String.format(
          "[java worker] drain %,d jobs in %.3f s = %,.0f jobs/s (bench CPU %.0f%% of a core%s%s);"
              + " received %,d, missing %,d, duplicates %,d, strays %,d -> %s",
          jobs, drainNanos / 1e9, drainRate(), drainClientCpuPct,
          ThroughputResult.serverCpu(ThroughputResult.microsPerJob(drainServerCpuNanos, jobs)),
          primedBeforeGo ? "" : "; handlers NOT all holding a job at go",
          received(), missing(), duplicates(), strays(), ok() ? "OK" : "FAILED");
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("ok", ok());
      m.put("jobs", jobs);
      m.put("enqueue_s", ThroughputResult.round(enqueueNanos / 1e9, 4));
      m.put("primed_before_go", primedBeforeGo);
      m.put("drain_s", ThroughputResult.round(drainNanos / 1e9, 4));
      m.put("drain_jobs_per_s", Math.round(drainRate()));
      m.put("drain_client_cpu_pct", ThroughputResult.round(drainClientCpuPct, 1));
      ThroughputResult.putIfKnown(m, "drain_server_cpu_us_per_job",
          ThroughputResult.microsPerJob(drainServerCpuNanos, jobs));
      m.put("received", received());
      m.put("missing", missing());
      m.put("duplicates", duplicates());
      m.put("strays", strays());
      return m;
    }
  }
}

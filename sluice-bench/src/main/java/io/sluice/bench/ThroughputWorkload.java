package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * Workload (a): bulk-enqueue N jobs, then drain them with take streams and batched acks, timing
 * each phase separately and checking that every job came back exactly once and was acked.
 */
final class ThroughputWorkload {

  /** Late deliveries after the last ack are still counted, so watch the streams a little longer. */
  private static final long GRACE_MILLIS = 250;
  private static final long CONNECT_TIMEOUT_SEC = 15;
  /** Upper bound for the streams to fill their prefetch windows before the drain clock starts. */
  private static final long PRIME_TIMEOUT_MILLIS = 10_000;

  private final BenchOptions opt;
  private final ClientKit kit;
  private final Endpoint endpoint;
  /** Budget every job is bound to, or null for unbound jobs (plain workload (a)). */
  private final String budgetKey;
  /** Told when the drain clock starts and stops, or null. */
  private DrainHook drainHook;
  private IntFunction<String> partitionOf;
  private LongSupplier serverCpuNanos = () -> -1;

  /**
   * Lets a workload run something exactly beside the drain (not the enqueue): {@link #beforeGo}
   * runs once every stream is primed, just before the drain clock starts, and {@link #drained}
   * as soon as the last job is acked, before the grace period. Both on the calling thread.
   */
  interface DrainHook {
    void beforeGo();

    void drained();
  }

  ThroughputWorkload(BenchOptions opt, ClientKit kit, Endpoint endpoint) {
    this(opt, kit, endpoint, null);
  }

  /** @param budgetKey an existing budget to bind every job to (cost 1), or null */
  ThroughputWorkload(BenchOptions opt, ClientKit kit, Endpoint endpoint, String budgetKey) {
    this.opt = opt;
    this.kit = kit;
    this.endpoint = endpoint;
    this.budgetKey = budgetKey;
  }

  /** Binds every job to a partition of the (partitioned) budget, by sequence number (X3). */
  ThroughputWorkload withPartitions(IntFunction<String> partitionOf) {
    this.partitionOf = partitionOf;
    return this;
  }

  /**
   * Reads the server's CPU time (nanoseconds, negative when unknown) around each phase, so the
   * result also says what each job cost the server; returns this.
   */
  ThroughputWorkload withServerCpu(LongSupplier cpuNanos) {
    this.serverCpuNanos = cpuNanos;
    return this;
  }

  /** Sets the drain hook; returns this. */
  ThroughputWorkload withDrainHook(DrainHook hook) {
    this.drainHook = hook;
    return this;
  }

  ThroughputResult run(String nonce) {
    String queue = opt.queue();
    List<Buffer> bodies = new JobBodies(queue, nonce, opt.payloadBytes(),
        budgetKey == null ? null : JobBodies.allTo(budgetKey), partitionOf)
        .bulk(opt.jobs(), opt.batch());
    HttpClientAgent connector = kit.connector();
    BulkEnqueuer enqueuer = new BulkEnqueuer(bodies, opt.jobs(), opt.batch());
    DrainTracker tracker = new DrainTracker(opt.jobs());
    List<BatchAckWorker> workers = new ArrayList<>();
    try {
      enqueuer.connect(contexts(opt.lanes()), connector, endpoint, CONNECT_TIMEOUT_SEC);
      long cpu0 = ProcessCpu.nanos();
      long serverCpu0 = serverCpuNanos.getAsLong();
      long enqueueNanos = enqueuer.run(opt.phaseTimeoutSec());
      long enqueueServerCpu = spent(serverCpu0, serverCpuNanos.getAsLong());
      double enqueueCpu = ProcessCpu.percentOfOneCore(cpu0, ProcessCpu.nanos(), enqueueNanos);
      enqueuer.close();

      List<Future<?>> connecting = new ArrayList<>();
      for (Context ctx : contexts(opt.workers())) {
        BatchAckWorker w = new BatchAckWorker(ctx, tracker, nonce);
        workers.add(w);
        connecting.add(w.connect(connector, endpoint));
      }
      Await.result(Future.all(connecting), CONNECT_TIMEOUT_SEC, TimeUnit.SECONDS, "connecting drain workers");

      List<Future<?>> opening = new ArrayList<>();
      for (BatchAckWorker w : workers) {
        opening.add(w.open(queue, opt.prefetch()));
      }
      Await.result(Future.all(opening), CONNECT_TIMEOUT_SEC, TimeUnit.SECONDS, "opening take streams");
      boolean primed = awaitPrimed(workers, tracker);
      if (drainHook != null) {
        drainHook.beforeGo();
      }

      long cpu1 = ProcessCpu.nanos();
      long serverCpu1 = serverCpuNanos.getAsLong();
      long go = System.nanoTime();
      for (BatchAckWorker w : workers) {
        w.go();
      }
      long end;
      try {
        end = Await.result(tracker.done(), opt.phaseTimeoutSec(), TimeUnit.SECONDS, "drain");
      } catch (BenchFailure e) {
        DrainTracker.Tally t = tracker.tally();
        throw new BenchFailure(e.getMessage() + " (" + t.received() + " of " + opt.jobs() + " jobs received, "
            + t.duplicates() + " duplicates, " + t.acked() + " acked)", e);
      }
      long drainServerCpu = spent(serverCpu1, serverCpuNanos.getAsLong());
      if (drainHook != null) {
        drainHook.drained();
      }
      long drainNanos = end - go;
      double drainCpu = ProcessCpu.percentOfOneCore(cpu1, ProcessCpu.nanos(), System.nanoTime() - go);

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
          enqueueNanos, enqueuer.requests(), enqueueCpu, enqueueServerCpu, primed, drainNanos, drainCpu,
          drainServerCpu, ackRequests, heartbeats, foreign, tracker.tally());
    } finally {
      enqueuer.close();
      closeAll(workers);
      Await.quietly(connector.close(), 5_000);
    }
  }

  /**
   * Waits until every stream holds a full prefetch window (or all jobs are held, for tiny runs).
   * @return false if that did not happen in time; the drain then starts anyway
   */
  private boolean awaitPrimed(List<BatchAckWorker> workers, DrainTracker tracker) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PRIME_TIMEOUT_MILLIS);
    while (System.nanoTime() < deadline) {
      int total = 0;
      boolean allFull = true;
      for (BatchAckWorker w : workers) {
        int held = w.heldBeforeGo();
        total += held;
        allFull &= held >= opt.prefetch();
      }
      if (allFull || total >= opt.jobs()) {
        return true;
      }
      if (tracker.done().failed()) {
        return false; // a broken stream; the drain wait reports it
      }
      sleep(1);
    }
    return false;
  }

  private List<Context> contexts(int n) {
    List<Context> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(kit.context(i));
    }
    return list;
  }

  /** CPU time between two readings, or -1 when either is unknown. */
  /** CPU time between two readings, or -1 when either is unknown. */
  static long spent(long before, long after) {
    return before < 0 || after < 0 ? -1 : after - before;
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

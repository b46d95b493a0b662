package io.sluice.client;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.client.model.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Takes jobs from a server and runs them through handlers chosen by job type.
 *
 * <pre>{@code
 * Worker worker = Worker.builder(client).queues("emails").concurrency(8).build();
 * worker.handle("send_email", Email.class, (email, job) -> mailer.send(email));
 * worker.start();
 * ...
 * worker.close(); // stop taking, finish running jobs, flush acks
 * }</pre>
 *
 * <p>Handlers run on the worker's handler threads, at most {@code concurrency} at once. Before
 * Java 21 (platform threads), while jobs take under 50 µs on average and no handler runs, the
 * take thread runs the next job itself rather than wake a handler thread for it; should that
 * job take more than a few milliseconds, a relief thread reads the stream meanwhile, so the jobs
 * after it are not held up.
 *
 * <p>Successes are acknowledged in batches; failures are reported at once with the exception's
 * type, message and stack trace. A dropped stream is reopened with exponential backoff. Delivery
 * is at least once: a job whose stream dropped before its ack arrived runs again.
 *
 * <p>In a cluster, a node that is not the leader and names it has the stream reopened on the
 * leader at once, and acks follow; while no leader is elected the stream is retried after the
 * node's {@code Retry-After}; a node that refuses connections is passed over for the client's
 * next seed URL (see {@link SluiceClient#builder(List)}).
 */
public final class Worker implements AutoCloseable {
  private static final AtomicInteger WORKERS = new AtomicInteger();
  /**
   * The most jobs the take thread holds back before handing them on: a large prefetch's burst
   * is not all parsed before its first job starts.
   */
  private static final int HANDOFF_BATCH = 16;

  private final SluiceClient client;
  private final Settings settings;
  private final HandlerRegistry handlers;
  private final Semaphore permits;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final AtomicBoolean abandoned = new AtomicBoolean();
  private final String name = "sluice-worker-" + WORKERS.incrementAndGet();
  private HandlerPool threads;
  private AckBatcher acks;
  private JobRunner runner;
  private TakeLoop takeLoop;
  /**
   * Jobs received and not yet handed to the handler threads; used only by the thread reading the
   * stream (the take thread, or a relief while a job runs on it: see {@link TakeLoop}).
   */
  private final List<Job> arrived = new ArrayList<>();
  private Thread takeThread;
  private final CountDownLatch shutDown = new CountDownLatch(1);
  private ScheduledExecutorService watchdog;

  private Worker(SluiceClient client, Settings settings) {
    this.client = client;
    this.settings = settings;
    this.handlers = new HandlerRegistry(client.codec());
    this.permits = new Semaphore(settings.prefetch);
  }

  public static Builder builder(SluiceClient client) {
    return new Builder(client);
  }

  /** Routes jobs of {@code type} to {@code handler}, their payload mapped to {@code payloadType}. */
  public <T> Worker handle(String type, Class<T> payloadType, JobHandler<T> handler) {
    handlers.register(type, payloadType, handler);
    return this;
  }

  /**
   * Routes jobs of {@code type} to a handler that returns what each really cost on its budgets:
   * the job is acknowledged with those settlements at once (not batched) when there are any.
   */
  public <T> Worker handleWithCosts(String type, Class<T> payloadType,
      CostedJobHandler<T> handler) {
    handlers.registerCosted(type, payloadType, handler);
    return this;
  }

  /**
   * Handles jobs of types without a handler. By default they fail with a message naming the
   * type, and are retried by the server like any failure.
   */
  public Worker fallback(JobHandler<JsonNode> handler) {
    handlers.fallback(handler);
    return this;
  }

  public synchronized void start() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("worker already started");
    }
    threads = HandlerThreads.pool(settings.concurrency, name + "-handler-");
    acks = new AckBatcher(client.jobs(), settings.effectiveAckBatchSize(), settings.ackInterval,
        name + "-acks", settings.prefetch, settings.concurrency, this::heldJobs);
    runner = new JobRunner(handlers, acks, client.jobs(), abandoned::get);
    takeLoop = new TakeLoop(client.jobs(), settings.queues, settings.prefetch, settings.workerId,
        permits, this::dispatch, this::runHere, this::handOff, acks::streamDrained,
        new ReconnectDelay(settings.reconnectMin, settings.reconnectMax), stopping::get);
    if (!HandlerThreads.virtualAvailable()) {
      // Measured on platform threads; on Java 21+ handlers keep to their virtual threads.
      threads.allowCallerRuns(takeLoop::relieveStalled);
    }
    acks.start();
    takeThread = new Thread(takeLoop, name + "-take");
    takeThread.setDaemon(true);
    takeThread.start();
    watchdog = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread thread = new Thread(task, name + "-watchdog");
      thread.setDaemon(true);
      return thread;
    });
    long idleNanos = settings.idleTimeout.toNanos();
    long checkMs = Math.max(10, settings.idleTimeout.toMillis() / 4);
    watchdog.scheduleWithFixedDelay(() -> takeLoop.closeIfIdle(idleNanos), checkMs, checkMs,
        TimeUnit.MILLISECONDS);
    // The worker's threads are daemons, the take thread too since it may run a handler; this one
    // keeps the JVM alive until shutdown, so that a handler abandoned then does not. Started last:
    // a start that failed before it leaves nothing holding the JVM.
    Thread keeper = new Thread(this::awaitShutDown, name + "-alive");
    keeper.start();
  }

  /** Jobs received and not yet settled (running, waiting for a thread or for their ack). */
  public int heldJobs() {
    return settings.prefetch - permits.availablePermits();
  }

  /** On the thread reading the stream: a job received, handed on with its batch. */
  private void dispatch(Job job) {
    acks.jobArrived();
    arrived.add(job);
    if (arrived.size() >= HANDOFF_BATCH) {
      handOff();
    }
  }

  /**
   * On the thread running the take loop: runs {@code job} on it, rather than waking a handler
   * thread, when no job waits to be handed on and the handler threads would have one thread run
   * it alone anyway ({@link HandlerPool#runHereIfQuick}); false when it did not.
   */
  private boolean runHere(Job job) {
    if (!arrived.isEmpty()) {
      return false;
    }
    acks.jobArrived();
    return threads.runHereIfQuick(() -> runUnlessStopping(job));
  }

  /**
   * On the thread reading the stream: hands the jobs received so far to the handler threads in
   * one batch, which wakes at most one thread: jobs that arrived together need not wake one each.
   */
  private void handOff() {
    if (arrived.isEmpty()) {
      return;
    }
    List<Runnable> batch = new ArrayList<>(arrived.size());
    for (Job job : arrived) {
      batch.add(() -> runUnlessStopping(job));
    }
    arrived.clear();
    try {
      threads.executeAll(batch);
    } catch (RejectedExecutionException e) {
      // Shut down: runUnlessStopping releases each. Else no handler thread could be made: run
      // them here rather than leave them held unrun.
      batch.forEach(Runnable::run);
    }
  }

  private void runUnlessStopping(Job job) {
    if (stopping.get()) {
      permits.release(); // not started: the server requeues it when the stream closes
      return;
    }
    runner.run(job, permits::release);
  }

  /**
   * Stops taking jobs, waits up to {@code timeout} for running handlers, flushes the pending
   * acks (allowing them at least {@link Builder#ackFlushGrace}) and closes the stream. Jobs
   * received but not started, and handlers still running at the deadline (they are interrupted,
   * their outcome discarded), are requeued by the server when the stream closes: none is lost.
   *
   * @return true if every started handler finished in time
   */
  public synchronized boolean shutdown(Duration timeout) {
    if (!started.get() || !stopping.compareAndSet(false, true)) {
      return true;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean finished = false;
    try {
      threads.shutdown();
      finished = threads.awaitTermination(deadline - System.nanoTime());
      if (!finished) {
        abandoned.set(true);
        threads.shutdownNow();
      }
      acks.close(Math.max(deadline, System.nanoTime() + settings.ackFlushGrace.toNanos()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      try {
        watchdog.shutdownNow();
        takeLoop.close(takeThread);
        joinQuietly(takeThread);
        Thread reader = takeLoop.reader();
        if (reader != null && reader != takeThread) {
          joinQuietly(reader); // a relief that carried the loop on
        }
      } finally {
        shutDown.countDown();
      }
    }
    return finished;
  }

  /** {@link #shutdown} with the builder's shutdown timeout. */
  @Override
  public void close() {
    shutdown(settings.shutdownTimeout);
  }

  private void awaitShutDown() {
    while (true) {
      try {
        shutDown.await();
        return;
      } catch (InterruptedException e) {
        // Only shutdown ends this thread.
      }
    }
  }

  private static void joinQuietly(Thread thread) {
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private record Settings(
      List<String> queues, int concurrency, int prefetch, int ackBatchSize,
      Duration ackInterval, Duration ackFlushGrace, Duration reconnectMin,
      Duration reconnectMax, Duration idleTimeout, Duration shutdownTimeout, String workerId) {

    /**
     * At most the prefetch: a batch never holds more acks than the server's window has jobs. The
     * batcher sends sooner when the window is done with (see {@link AckBatcher}).
     */
    int effectiveAckBatchSize() {
      return Math.max(1, Math.min(ackBatchSize, prefetch));
    }
  }

  /** Worker settings; every one has a default. */
  public static final class Builder {
    private final SluiceClient client;
    private List<String> queues = List.of();
    private int concurrency = 8;
    private Integer prefetch;
    private int ackBatchSize = 100;
    private Duration ackInterval = Duration.ofMillis(5);
    private Duration ackFlushGrace = Duration.ofSeconds(2);
    private Duration reconnectMin = Duration.ofMillis(100);
    private Duration reconnectMax = Duration.ofSeconds(5);
    private Duration idleTimeout = Duration.ofSeconds(10);
    private Duration shutdownTimeout = Duration.ofSeconds(30);
    private String workerId;

    private Builder(SluiceClient client) {
      this.client = client;
    }

    /** The queues to take from; none (the default) means every queue. */
    public Builder queues(String... queues) {
      this.queues = List.of(queues);
      return this;
    }

    /** How many handlers run at once (default 8). */
    public Builder concurrency(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("concurrency must be at least 1");
      }
      this.concurrency = threads;
      return this;
    }

    /**
     * The most jobs this worker holds unfinished: running, waiting for a thread or waiting for
     * their ack (1–65535; default: the concurrency).
     */
    public Builder prefetch(int prefetch) {
      if (prefetch < 1 || prefetch > 65535) {
        throw new IllegalArgumentException("prefetch must be between 1 and 65535");
      }
      this.prefetch = prefetch;
      return this;
    }

    /** Acks per {@code POST /jobs/success} at most (default 100, capped at the prefetch). */
    public Builder ackBatchSize(int size) {
      if (size < 1) {
        throw new IllegalArgumentException("ack batch size must be at least 1");
      }
      this.ackBatchSize = size;
      return this;
    }

    /** The longest a finished job waits for its batch to be sent (default 5 ms). */
    public Builder ackInterval(Duration interval) {
      this.ackInterval = interval;
      return this;
    }

    /** At shutdown, time allowed for the last acks even when handlers used up the timeout. */
    public Builder ackFlushGrace(Duration grace) {
      this.ackFlushGrace = grace;
      return this;
    }

    /** Reconnection backoff: from {@code min}, doubling up to {@code max}. */
    public Builder reconnectDelay(Duration min, Duration max) {
      this.reconnectMin = min;
      this.reconnectMax = max;
      return this;
    }

    /**
     * Silence after which the stream is considered dead and reopened (default 10 s; keep it well
     * above the server's heartbeat interval).
     */
    public Builder idleTimeout(Duration timeout) {
      this.idleTimeout = timeout;
      return this;
    }

    /** How long {@link Worker#close} waits for running handlers (default 30 s). */
    public Builder shutdownTimeout(Duration timeout) {
      this.shutdownTimeout = timeout;
      return this;
    }

    /** Sent as {@code Worker-Id}, shown in the server's logs. */
    public Builder workerId(String workerId) {
      this.workerId = workerId;
      return this;
    }

    public Worker build() {
      return new Worker(client, new Settings(queues, concurrency,
          prefetch != null ? prefetch : concurrency, ackBatchSize, ackInterval, ackFlushGrace,
          reconnectMin, reconnectMax, idleTimeout, shutdownTimeout, workerId));
    }
  }
}

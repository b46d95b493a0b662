package io.sluice.client;

import io.sluice.client.model.Job;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one take stream open, reconnecting with backoff whenever it drops (after the
 * {@code Retry-After} when a cluster has no leader yet), and hands each job on once a prefetch
 * permit is free. Jobs are handed on in batches: the loop tells {@code handOff} to pass on those
 * handed so far before a read that may wait, before it waits for a permit, and whenever the
 * stream ends. The permits keep the jobs a worker holds (running, queued for a thread, or
 * awaiting their ack) at most the prefetch, also across reconnections, when jobs of the old
 * stream may still be running.
 *
 * <p>A job may instead be run on the loop's thread itself ({@code runHere}), when the handler
 * threads would have had one thread run it alone anyway: a stream of quick jobs then needs no
 * thread hand-off per burst. Should the job stall, {@link #relieveStalled} starts a relief thread
 * that reads and hands jobs on in the loop's place (so {@code handOff} and {@code drained} then
 * run on it) until the job is done and the loop takes the stream back; should the stream end
 * meanwhile, the relief reconnects and runs the loop from then on.
 */
final class TakeLoop implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(TakeLoop.class);

  private final JobsApi jobs;
  private final List<String> queues;
  private final int prefetch;
  private final String workerId;
  private final Semaphore permits;
  private final Consumer<Job> dispatch;
  private final Predicate<Job> runHere;
  private final Runnable handOff;
  private final Runnable drained;
  private final ReconnectDelay delay;
  private final BooleanSupplier stopping;
  /** The stream open, which is the one drained (and lent to a relief) while one is. */
  private final AtomicReference<TakeStream> current = new AtomicReference<>();
  private volatile boolean closed;
  /** Held by the thread reading the stream: the loop's, or a relief's while a job runs here. */
  private final ReentrantLock reading = new ReentrantLock();
  /** The loop thread running a job with the stream lent, or null. */
  private final AtomicReference<Thread> lentBy = new AtomicReference<>();
  /** The lender whose job is done: the relief serving it hands the stream back. */
  private final AtomicReference<Thread> wantsBack = new AtomicReference<>();
  private volatile Thread relief;
  /** The thread that runs the loop: the take thread, or a relief that carried on in its place. */
  private volatile Thread reader;
  private volatile String loopThreadName = "sluice-take";

  /**
   * @param handOff told on the thread reading the stream to pass on the jobs dispatched so far
   * @param drained told on the thread reading the stream when it read all that arrived and waits
   *     for more, after {@code handOff}
   */
  TakeLoop(JobsApi jobs, List<String> queues, int prefetch, String workerId, Semaphore permits,
      Consumer<Job> dispatch, Predicate<Job> runHere, Runnable handOff, Runnable drained,
      ReconnectDelay delay, BooleanSupplier stopping) {
    this.jobs = jobs;
    this.queues = queues;
    this.prefetch = prefetch;
    this.workerId = workerId;
    this.permits = permits;
    this.dispatch = dispatch;
    this.runHere = runHere;
    this.handOff = handOff;
    this.drained = drained;
    this.delay = delay;
    this.stopping = stopping;
  }

  @Override
  public void run() {
    loopThreadName = Thread.currentThread().getName();
    loop();
  }

  /**
   * Opens, drains and reopens the stream while this thread is the {@link #reader}: until closed,
   * or until a relief that saw the stream end while this thread ran a job carries on in its place.
   */
  private void loop() {
    reader = Thread.currentThread();
    while (!closed) {
      long retryAfterMs = -1;
      TakeStream opened = null;
      try {
        opened = jobs.take(queues, prefetch, workerId);
        current.set(opened);
        if (closed) {
          return; // close() ran while the stream was opening
        }
        opened.onReadMayWait(handOff);
        opened.onDrained(drained);
        delay.reset();
        LOG.debug("take stream open on {}", queues.isEmpty() ? "all queues" : queues);
        drain(opened);
        if (!closed && reader == Thread.currentThread()) { // else a relief reconnected already
          LOG.info("take stream ended by the server; reconnecting");
        }
      } catch (UnavailableException e) {
        // A cluster electing its leader: come back when asked, not on the backoff's schedule.
        retryAfterMs = e.retryAfter().map(Duration::toMillis).orElse(-1L);
        if (!closed) {
          LOG.info("take stream refused: {}", e.getMessage());
        }
      } catch (SluiceException e) {
        if (!closed) {
          LOG.warn("take stream failed: {}", e.getMessage());
        }
      } catch (InterruptedException e) {
        // Interrupted by close() while waiting for a permit.
      } finally {
        if (opened != null) {
          current.compareAndSet(opened, null); // not a stream a relief opened since
          opened.close();
        }
        Thread.interrupted(); // an interrupt that aborted a read must not abort the wait below
      }
      if (reader != Thread.currentThread()) {
        return; // a relief runs the loop in this thread's place
      }
      if (!closed && !pause(retryAfterMs >= 0 ? jittered(retryAfterMs) : delay.nextMs())) {
        return;
      }
    }
  }

  private void drain(TakeStream stream) throws InterruptedException {
    reading.lock();
    try {
      Job job;
      while ((job = stream.next()) != null) {
        if (!take(job)) {
          continue;
        }
        if (!runHereLendingStream(job)) {
          dispatch.accept(job);
        }
        if (reader != Thread.currentThread()) {
          return; // the stream ended while lent: the relief reconnects
        }
      }
    } finally {
      if (reader == Thread.currentThread()) { // else the relief now running the loop owns it
        handOff.run();
      }
      reading.unlock();
    }
  }

  /** False for a job left unstarted while stopping; else once it holds a prefetch permit. */
  private boolean take(Job job) throws InterruptedException {
    if (stopping.getAsBoolean()) {
      return false; // left unstarted: the server requeues it when the stream closes
    }
    if (!permits.tryAcquire()) {
      handOff.run(); // the jobs in hand free the permits
      permits.acquire();
    }
    return true;
  }

  /**
   * Holding {@link #reading}: offers {@code job} to {@code runHere} with the stream lent to a
   * relief, should the job stall, and takes the stream back afterwards (waiting for a relief to
   * hand it back at its next job).
   */
  private boolean runHereLendingStream(Job job) {
    Thread me = Thread.currentThread();
    lentBy.set(me);
    reading.unlock();
    try {
      return runHere.test(job);
    } finally {
      lentBy.compareAndSet(me, null);
      wantsBack.set(me);
      reading.lock();
      wantsBack.compareAndSet(me, null);
    }
  }

  /**
   * Told by the handler threads when a job run on the loop's thread has stalled, with a check
   * true while that job still runs: starts a relief that reads the stream and hands its jobs on
   * meanwhile; should the stream end meanwhile, the relief runs the loop from then on.
   */
  void relieveStalled(BooleanSupplier stillStalled) {
    Thread lender = lentBy.get();
    if (lender == null || closed) {
      return;
    }
    Thread thread = new Thread(() -> relieve(lender, stillStalled), loopThreadName + "-relief");
    thread.setDaemon(true); // as the take thread: the worker's keeper holds the JVM
    relief = thread;
    thread.start();
  }

  /** On a relief thread: serves the stalled job unless it ended before the relief began. */
  private void relieve(Thread lender, BooleanSupplier stillStalled) {
    boolean streamEnded = false;
    reading.lock();
    try {
      TakeStream stream = current.get();
      if (lentBy.get() == lender && stillStalled.getAsBoolean() && stream != null) {
        streamEnded = readInsteadOfLoop(stream, lender);
        if (streamEnded) {
          reader = Thread.currentThread(); // the loop's thread leaves once its job is done
        }
      }
    } finally {
      if (relief == Thread.currentThread()) {
        relief = null;
      }
      reading.unlock();
    }
    if (streamEnded && !closed) {
      LOG.info("take stream ended while a job ran on the take thread; reconnecting from {}",
          Thread.currentThread().getName());
      loop();
    }
  }

  /**
   * Holding {@link #reading}: reads and hands jobs on until the loop wants the stream back;
   * true when the stream ended or failed first.
   */
  private boolean readInsteadOfLoop(TakeStream stream, Thread lender) {
    LOG.debug("a job running on the take thread is slow; a relief reads the stream meanwhile");
    try {
      while (wantsBack.get() != lender) {
        Job job = stream.next();
        if (job == null) {
          return true;
        }
        if (take(job)) {
          dispatch.accept(job);
        }
      }
      return false;
    } catch (InterruptedException e) {
      return false; // interrupted by close(): the stream is closed too
    } catch (SluiceException e) {
      if (!closed) {
        LOG.warn("take stream failed: {}", e.getMessage());
      }
      return true;
    } finally {
      handOff.run();
    }
  }

  /** Up to a tenth more, so that a cluster's workers do not all return in the same instant. */
  private static long jittered(long millis) {
    return millis + ThreadLocalRandom.current().nextLong(millis / 10 + 1);
  }

  /** Sleeps before reconnecting; false when close() interrupted the wait. */
  private boolean pause(long millis) {
    try {
      Thread.sleep(millis);
      return !closed;
    } catch (InterruptedException e) {
      return false;
    }
  }

  /**
   * Closes the stream when nothing arrived, not even a heartbeat, for {@code idleNanos} while
   * the loop was waiting for it: the connection is dead without the socket knowing.
   */
  void closeIfIdle(long idleNanos) {
    TakeStream stream = current.get();
    if (stream != null && stream.idleNanos() > idleNanos) {
      LOG.warn("take stream silent for {} ms; reconnecting", idleNanos / 1_000_000);
      stream.close();
    }
  }

  /** The thread running the loop: the one that ran {@link #run}, or a relief carrying on. */
  Thread reader() {
    return reader;
  }

  /** Stops reconnecting and closes the open stream, so the server requeues what it holds. */
  void close(Thread loopThread) {
    closed = true;
    TakeStream stream = current.get();
    if (stream != null) {
      stream.close();
    }
    Thread reliefThread = relief;
    if (reliefThread != null) {
      reliefThread.interrupt();
    }
    Thread loopReader = reader;
    if (loopReader != null && loopReader != loopThread) {
      loopReader.interrupt();
    }
    loopThread.interrupt();
  }
}

package io.sluice.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects successful job ids and sends them in {@code POST /jobs/success} calls, as soon as
 * {@code batchSize} are waiting, the waiting acks and the jobs in hand fill the server's
 * prefetch window (it sends nothing more until acks arrive), or the oldest has waited
 * {@code maxDelay}. Up to {@link #CONCURRENT_SENDS} calls are in flight at once, so that jobs
 * finishing during one round trip need not wait for it.
 */
final class AckBatcher {
  private static final Logger LOG = LoggerFactory.getLogger(AckBatcher.class);
  private static final int SEND_ATTEMPTS = 5;
  static final int CONCURRENT_SENDS = 4;


  private final JobsApi jobs;
  private final int window;
  private final IntSupplier heldJobs;
  private final int batchSize;
  private final long maxDelayNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final List<String> pending = new ArrayList<>();
  private final Thread flusher;
  private final Semaphore sendSlots = new Semaphore(CONCURRENT_SENDS);
  private long oldestNanos;
  private boolean closing;
  private boolean flushNow;
  /** Also read by the HTTP client's thread, deciding whether a failed send is retried. */
  private volatile boolean closed;

  /**
   * @param window the server's prefetch window
   * @param heldJobs the jobs the worker holds (running or waiting for a thread)
   */
  AckBatcher(JobsApi jobs, int batchSize, Duration maxDelay, String threadName, int window,
      IntSupplier heldJobs) {
    this.jobs = jobs;
    this.batchSize = batchSize;
    this.maxDelayNanos = maxDelay.toNanos();
    this.window = window;
    this.heldJobs = heldJobs;
    this.flusher = new Thread(this::flushLoop, threadName);
    this.flusher.setDaemon(true);
  }

  void start() {
    flusher.start();
  }

  void add(String id) {
    lock.lock();
    try {
      if (closed) {
        return; // too late: the stream is closing and the server will requeue the job
      }
      if (pending.isEmpty()) {
        oldestNanos = System.nanoTime();
      }
      pending.add(id);
      boolean windowFull = pending.size() + heldJobs.getAsInt() >= window;
      flushNow |= windowFull;
      if (pending.size() == 1 || pending.size() >= batchSize || windowFull) {
        changed.signal(); // the first id starts the delay clock; a due batch goes at once
      }
    } finally {
      lock.unlock();
    }
  }

  /** Sends everything pending, then stops; gives up on the flush at {@code deadlineNanos}. */
  void close(long deadlineNanos) throws InterruptedException {
    lock.lock();
    try {
      closing = true;
      changed.signal();
    } finally {
      lock.unlock();
    }
    flusher.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
    if (flusher.isAlive()) {
      flusher.interrupt();
      flusher.join();
    }
  }

  private void flushLoop() {
    try {
      while (true) {
        sendSlots.acquire();
        List<String> batch = nextBatch();
        if (batch == null) {
          sendSlots.release();
          break;
        }
        send(batch, 1);
      }
      sendSlots.acquire(CONCURRENT_SENDS); // the last sends have been answered
    } catch (InterruptedException e) {
      dropRemaining();
    }
  }

  /** Waits for a batch to be due; null once closing and nothing is left. */
  private List<String> nextBatch() throws InterruptedException {
    lock.lock();
    try {
      while (pending.isEmpty() && !closing) {
        changed.await();
      }
      while (!closing && !flushNow && pending.size() < batchSize) {
        long wait = oldestNanos + maxDelayNanos - System.nanoTime();
        if (wait <= 0) {
          break;
        }
        changed.awaitNanos(wait);
      }
      if (pending.isEmpty()) {
        closed = true;
        return null;
      }
      List<String> batch = new ArrayList<>(pending);
      pending.clear();
      flushNow = false;
      return batch;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Sends one batch without blocking this thread; the answer, on the HTTP client's thread, frees
   * the send slot, or schedules the next attempt after a transport or server error.
   */
  private void send(List<String> ids, int attempt) {
    jobs.ackAllAsync(ids).whenComplete((notFound, error) -> {
      Throwable cause = error instanceof CompletionException ? error.getCause() : error;
      if (cause == null) {
        if (!notFound.isEmpty()) {
          LOG.debug("{} acknowledged jobs were no longer in flight (requeued or deleted): {}",
              notFound.size(), notFound);
        }
      } else if ((cause instanceof ConnectionException || cause instanceof ServerException)
          && attempt < SEND_ATTEMPTS && !closed) {
        Executor later = CompletableFuture.delayedExecutor(50L << attempt, TimeUnit.MILLISECONDS);
        later.execute(() -> send(ids, attempt + 1));
        return;
      } else {
        // The server requeues these jobs when their stream drops; they will run again.
        LOG.warn("could not acknowledge {} jobs: {}", ids.size(), cause.getMessage());
      }
      sendSlots.release();
    });
  }

  private void dropRemaining() {
    lock.lock();
    try {
      closed = true;
      pending.clear(); // the server requeues these jobs when the stream closes
    } finally {
      lock.unlock();
    }
  }

}

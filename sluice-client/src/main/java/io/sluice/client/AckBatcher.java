package io.sluice.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects successful job ids and sends them in {@code POST /jobs/success} calls, as soon as
 * {@code batchSize} are waiting, the worker has nothing else in hand (so the batch cannot grow
 * and its jobs' prefetch slots are what the stream waits for), or the oldest has waited
 * {@code maxDelay}. Up to
 * {@link #CONCURRENT_SENDS} calls are in flight at once, so that jobs finishing during one round
 * trip need not wait for it. Each id's {@code settled} callback runs once the server has answered
 * for it (or it was given up).
 */
final class AckBatcher {
  private static final Logger LOG = LoggerFactory.getLogger(AckBatcher.class);
  private static final int SEND_ATTEMPTS = 5;
  static final int CONCURRENT_SENDS = 4;

  private record Pending(String id, Runnable settled) {}

  private final JobsApi jobs;
  private final int batchSize;
  private final long maxDelayNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final List<Pending> pending = new ArrayList<>();
  private final Thread flusher;
  private final ExecutorService senders;
  private final Semaphore sendSlots = new Semaphore(CONCURRENT_SENDS);
  private long oldestNanos;
  private boolean closing;
  private boolean flushNow;
  private boolean closed;

  AckBatcher(JobsApi jobs, int batchSize, Duration maxDelay, String threadName) {
    this.jobs = jobs;
    this.batchSize = batchSize;
    this.maxDelayNanos = maxDelay.toNanos();
    this.flusher = new Thread(this::flushLoop, threadName);
    this.flusher.setDaemon(true);
    this.senders = Executors.newFixedThreadPool(CONCURRENT_SENDS, task -> {
      Thread sender = new Thread(task, threadName + "-send");
      sender.setDaemon(true);
      return sender;
    });
  }

  void start() {
    flusher.start();
  }

  /** @param idle true when no other job is queued or running: send what is waiting now */
  void add(String id, Runnable settled, boolean idle) {
    lock.lock();
    try {
      if (closed) {
        // Too late: the stream is closing and the server will requeue the job.
        settled.run();
        return;
      }
      if (pending.isEmpty()) {
        oldestNanos = System.nanoTime();
      }
      pending.add(new Pending(id, settled));
      flushNow |= idle;
      if (pending.size() == 1 || pending.size() >= batchSize || idle) {
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
        List<Pending> batch = nextBatch();
        if (batch == null) {
          sendSlots.release();
          break;
        }
        senders.execute(() -> {
          try {
            send(batch);
          } finally {
            sendSlots.release();
          }
        });
      }
      sendSlots.acquire(CONCURRENT_SENDS); // the last sends have been answered
    } catch (InterruptedException e) {
      senders.shutdownNow();
      settleRemaining();
    } finally {
      senders.shutdown();
    }
  }

  /** Waits for a batch to be due; null once closing and nothing is left. */
  private List<Pending> nextBatch() throws InterruptedException {
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
      List<Pending> batch = new ArrayList<>(pending);
      pending.clear();
      flushNow = false;
      return batch;
    } finally {
      lock.unlock();
    }
  }

  private void send(List<Pending> batch) {
    List<String> ids = batch.stream().map(Pending::id).toList();
    try {
      for (int attempt = 1; ; attempt++) {
        try {
          List<String> notFound = jobs.ackAll(ids);
          if (!notFound.isEmpty()) {
            LOG.debug("{} acknowledged jobs were no longer in flight (requeued or deleted): {}",
                notFound.size(), notFound);
          }
          return;
        } catch (ConnectionException | ServerException e) {
          if (attempt == SEND_ATTEMPTS || Thread.currentThread().isInterrupted()) {
            // The server requeues these jobs when their stream drops; they will run again.
            LOG.warn("giving up acknowledging {} jobs: {}", ids.size(), e.getMessage());
            return;
          }
          sleep(50L << attempt);
        } catch (SluiceException e) {
          LOG.warn("server refused to acknowledge {} jobs: {}", ids.size(), e.getMessage());
          return;
        }
      }
    } finally {
      batch.forEach(item -> item.settled().run());
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // seen by the retry loop, which then gives up
    }
  }

  private void settleRemaining() {
    lock.lock();
    try {
      closed = true;
      pending.forEach(item -> item.settled().run());
      pending.clear();
    } finally {
      lock.unlock();
    }
  }
}

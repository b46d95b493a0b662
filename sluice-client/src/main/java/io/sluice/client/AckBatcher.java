package io.sluice.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects successful job ids and sends them in {@code POST /jobs/success} calls, as soon as
 * {@code batchSize} are waiting, the oldest has waited {@code maxDelay}, the worker holds no other
 * job (nothing more will finish to join the batch), or the waiting acks and the jobs in hand fill
 * the server's prefetch window (it sends nothing more until acks arrive). {@link #SENDERS}
 * threads send, so that jobs finishing during one round trip need not wait for it.
 *
 * <p>Each sender has its own kept-alive connection ({@link AckChannel}) and blocks on it. Not the
 * JDK's {@code HttpClient.sendAsync}: it hands every answer to the common fork-join pool, which on
 * machines of one or two cores starts a new thread per task, a cost paid on every ack.
 */
final class AckBatcher {
  private static final Logger LOG = LoggerFactory.getLogger(AckBatcher.class);
  private static final int SEND_ATTEMPTS = 5;
  static final int SENDERS = 2;
  /** How long senders get to stop once their connections are closed at the deadline. */
  private static final long ABORT_GRACE_MS = 1_000;

  private final JobsApi jobs;
  private final int window;
  private final IntSupplier heldJobs;
  private final int batchSize;
  private final long maxDelayNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final List<String> pending = new ArrayList<>();
  private final List<Thread> senders = new ArrayList<>();
  private final List<AckChannel> channels = new CopyOnWriteArrayList<>();
  /** A failed send is retried until then (the flush deadline once closing). */
  private volatile long giveUpAtNanos = Long.MAX_VALUE;
  private long oldestNanos;
  private boolean closing;
  private boolean flushNow;
  private boolean closed;

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
    for (int i = 0; i < SENDERS; i++) {
      Thread sender = new Thread(this::sendLoop, threadName + "-" + i);
      sender.setDaemon(true);
      senders.add(sender);
    }
  }

  void start() {
    senders.forEach(Thread::start);
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
      int held = heldJobs.getAsInt();
      boolean due = held == 0 || pending.size() + held >= window;
      flushNow |= due;
      if (pending.size() == 1 || pending.size() >= batchSize || due) {
        changed.signal(); // the first id starts the delay clock; a due batch goes at once
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Sends everything pending, then stops; gives up on the flush at {@code deadlineNanos}: the
   * senders' connections are then closed, which ends a send blocked on the network, and what is
   * left is dropped (the server requeues those jobs when the stream closes).
   */
  void close(long deadlineNanos) throws InterruptedException {
    giveUpAtNanos = deadlineNanos;
    lock.lock();
    try {
      closing = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    for (Thread sender : senders) {
      sender.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
    }
    if (senders.stream().noneMatch(Thread::isAlive)) {
      return;
    }
    senders.forEach(Thread::interrupt);
    channels.forEach(AckChannel::abort);
    for (Thread sender : senders) {
      sender.join(ABORT_GRACE_MS);
      if (sender.isAlive()) {
        LOG.warn("ack sender {} did not stop; leaving it behind", sender.getName());
      }
    }
  }

  private void sendLoop() {
    try (AckChannel channel = jobs.ackChannel()) {
      channels.add(channel);
      List<String> batch;
      while ((batch = nextBatch()) != null) {
        send(channel, batch);
      }
    } catch (InterruptedException e) {
      dropRemaining();
    }
  }

  /** Waits for a batch to be due; null once closing and nothing is left. */
  private List<String> nextBatch() throws InterruptedException {
    lock.lockInterruptibly();
    try {
      while (true) {
        if (Thread.interrupted()) {
          throw new InterruptedException(); // the flush deadline passed
        }
        if (pending.isEmpty()) {
          if (closing) {
            closed = true;
            return null;
          }
          changed.await();
          continue; // another sender may have taken what woke this one
        }
        if (closing || flushNow || pending.size() >= batchSize) {
          break;
        }
        long wait = oldestNanos + maxDelayNanos - System.nanoTime();
        if (wait <= 0) {
          break;
        }
        changed.awaitNanos(wait);
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
   * Sends one batch, retrying transport and server errors with backoff while attempts and the
   * flush deadline allow.
   */
  private void send(AckChannel channel, List<String> ids) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        List<String> notFound = channel.ackAll(ids);
        if (!notFound.isEmpty()) {
          LOG.debug("{} acknowledged jobs were no longer in flight (requeued or deleted): {}",
              notFound.size(), notFound);
        }
        return;
      } catch (ConnectionException | ServerException e) {
        long backoffMs = 50L << attempt;
        if (attempt >= SEND_ATTEMPTS
            || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs) > giveUpAtNanos) {
          giveUp(ids, e);
          return;
        }
        Thread.sleep(backoffMs);
      } catch (RuntimeException e) {
        giveUp(ids, e);
        return;
      }
    }
  }

  private static void giveUp(List<String> ids, RuntimeException cause) {
    // The server requeues these jobs when their stream drops; they will run again.
    LOG.warn("could not acknowledge {} jobs: {}", ids.size(), cause.toString());
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

package io.sluice.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects successful job ids and sends them in {@code POST /jobs/success} calls, as soon as
 * {@code batchSize} are waiting, the oldest has waited {@code maxDelay}, the waiting acks and the
 * jobs in hand fill the server's prefetch window (it sends nothing more until acks arrive), or
 * the worker holds no other job while its take stream has read everything that arrived (the end
 * of a burst: nothing more is about to join the batch). A burst the server sends at once is thus
 * acknowledged at once, in one request. {@link #SENDERS} threads send, so that jobs finishing
 * during one round trip need not wait for it.
 *
 * <p>Each sender has its own kept-alive connection ({@link AckChannel}) and blocks on it. A batch
 * that becomes due in a handler or the take thread while a sender is idle is written by that
 * thread itself, and the idle sender only reads the answer: waking a sender to write would put a
 * thread wake-up, a long wait on a loaded machine, between each batch and the server. For the
 * same reason, while the worker holds jobs one idle sender waits with the max delay as its
 * timeout and looks again, so the first ack of a batch need not wake a sender to start the delay
 * clock (a worker holding one long job thus has a sender look every max delay); a worker holding
 * nothing has its senders wait untimed. Not the
 * JDK's {@code HttpClient.sendAsync}: it hands every answer to the common fork-join pool, which
 * on machines of one or two cores starts a new thread per task, a cost paid on every ack.
 */
final class AckBatcher {
  private static final Logger LOG = LoggerFactory.getLogger(AckBatcher.class);
  private static final int SEND_ATTEMPTS = 5;
  static final int SENDERS = 2;
  /**
   * Jobs quicker than this on average are waited for when the window is otherwise done: they
   * will finish sooner than an ack's round trip, and one ack for the whole window costs the
   * server less than several.
   */
  private static final long QUICK_JOB_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** How long senders get to stop once their connections are closed at the deadline. */
  private static final long ABORT_GRACE_MS = 1_000;

  private final int window;
  private final int threads;
  private final IntSupplier heldJobs;
  private final int batchSize;
  private final long maxDelayNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final List<String> pending = new ArrayList<>();
  private final List<Sender> senders = new ArrayList<>();
  /** A failed send is retried until then (the flush deadline once closing). */
  private volatile long giveUpAtNanos = Long.MAX_VALUE;
  private long oldestNanos;
  private boolean closing;
  private boolean flushNow;
  private boolean closed;
  /** Moving average of how long a job takes its handler. */
  private long averageJobNanos;
  /** The take stream has read all that arrived and waits for more; written without the lock. */
  private volatile boolean streamDrained;
  /**
   * The idle sender waiting with a timeout while the worker holds jobs, so that the first ack of
   * a batch needs no wake-up to start the delay clock: it looks within the delay anyway.
   */
  private Sender ticking;

  /** A sender thread and its connection; the fields are guarded by {@link #lock}. */
  private final class Sender {
    final AckChannel channel;
    final Thread thread;
    final Condition wake = lock.newCondition();
    /** Waiting for a batch and not claimed: a handler thread may write its batch here. */
    boolean idle;
    /** A handler thread is writing a batch on this sender's channel. */
    boolean claimed;
    /** The batch a handler thread wrote here, for this sender to finish. */
    List<String> begun;

    Sender(AckChannel channel, String name) {
      this.channel = channel;
      this.thread = new Thread(() -> sendLoop(this), name);
      thread.setDaemon(true);
    }
  }

  /** A batch for a sender; {@code begun} when a handler thread already wrote it. */
  private record Batch(List<String> ids, boolean begun) {}

  /**
   * @param window the server's prefetch window
   * @param threads the handler threads
   * @param heldJobs the jobs the worker holds (running or waiting for a thread)
   */
  AckBatcher(JobsApi jobs, int batchSize, Duration maxDelay, String threadName, int window,
      int threads, IntSupplier heldJobs) {
    this.batchSize = batchSize;
    this.maxDelayNanos = maxDelay.toNanos();
    this.window = window;
    this.threads = threads;
    this.heldJobs = heldJobs;
    for (int i = 0; i < SENDERS; i++) {
      senders.add(new Sender(jobs.ackChannel(), threadName + "-" + i));
    }
  }

  void start() {
    senders.forEach(sender -> sender.thread.start());
  }

  /** A handler thread finished the job {@code id}, which took it {@code tookNanos}. */
  void add(String id, long tookNanos) {
    Sender writer;
    List<String> batch = null;
    lock.lock();
    try {
      if (closed) {
        return; // too late: the stream is closing and the server will requeue the job
      }
      averageJobNanos += (tookNanos - averageJobNanos) / 8;
      boolean first = pending.isEmpty();
      if (first) {
        oldestNanos = System.nanoTime();
      }
      pending.add(id);
      writer = claimIfDue();
      if (writer != null) {
        batch = takePending();
      } else if (first && ticking == null) {
        wakeIdleSender(); // starts the delay clock
      }
    } finally {
      lock.unlock();
    }
    if (writer != null) {
      write(writer, batch);
    }
  }

  /** The take stream handed on a job: more may follow in the same burst. */
  void jobArrived() {
    if (streamDrained) {
      streamDrained = false;
    }
  }

  /** The take stream read all that arrived and is about to wait: its burst is over. */
  void streamDrained() {
    streamDrained = true;
    Sender writer;
    List<String> batch = null;
    lock.lock();
    try {
      writer = claimIfDue();
      if (writer != null) {
        batch = takePending();
      }
    } finally {
      lock.unlock();
    }
    if (writer != null) {
      write(writer, batch);
    }
  }

  /**
   * Under the lock: when the pending batch is due, an idle sender reserved for the caller to
   * write it on; with none idle, the batch is left to the senders and null returned, as it is
   * when nothing is due.
   */
  private Sender claimIfDue() {
    if (closed || pending.isEmpty()) {
      return null;
    }
    int held = heldJobs.getAsInt();
    boolean windowDone = pending.size() + held >= window;
    boolean full = pending.size() >= batchSize || (windowDone && held == 0)
        || (windowDone && held < threads && averageJobNanos >= QUICK_JOB_NANOS);
    boolean burstDone = held == 0 && streamDrained;
    if (!full && !burstDone) {
      return null;
    }
    Sender writer = claimIdleSender();
    if (writer == null) {
      flushNow = true;
      wakeIdleSender();
    }
    return writer;
  }

  /** Writes {@code batch} on the claimed sender's channel and hands the sender its answer. */
  private void write(Sender writer, List<String> batch) {
    try {
      writer.channel.begin(batch); // outside the lock: other handlers keep adding meanwhile
    } finally {
      lock.lock();
      try {
        writer.claimed = false;
        writer.begun = batch; // the sender finishes it, or sends it again if the write failed
        writer.wake.signal();
      } finally {
        lock.unlock();
      }
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
      senders.forEach(sender -> sender.wake.signal());
    } finally {
      lock.unlock();
    }
    for (Sender sender : senders) {
      sender.thread.join(
          Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
    }
    if (senders.stream().noneMatch(sender -> sender.thread.isAlive())) {
      return;
    }
    senders.forEach(sender -> sender.thread.interrupt());
    senders.forEach(sender -> sender.channel.abort());
    for (Sender sender : senders) {
      sender.thread.join(ABORT_GRACE_MS);
      if (sender.thread.isAlive()) {
        LOG.warn("ack sender {} did not stop; leaving it behind", sender.thread.getName());
      }
    }
  }

  /**
   * True when a sender waits idle on an open connection: a batch that becomes due is then
   * written at once by the thread that makes it due. For tests, which need that to be
   * deterministic.
   */
  boolean readyToWrite() {
    lock.lock();
    try {
      return senders.stream().anyMatch(sender -> sender.idle && sender.channel.connected());
    } finally {
      lock.unlock();
    }
  }

  /** An idle sender whose connection is open, now reserved for the caller's write; or null. */
  private Sender claimIdleSender() {
    for (Sender sender : senders) {
      if (sender.idle && sender.channel.connected()) {
        sender.idle = false;
        sender.claimed = true;
        if (ticking == sender) {
          ticking = null; // busy with this batch: the next first ack wakes another
        }
        return sender;
      }
    }
    return null;
  }

  private void wakeIdleSender() {
    for (Sender sender : senders) {
      if (sender.idle) {
        sender.wake.signal();
        return;
      }
    }
  }

  private List<String> takePending() {
    List<String> batch = new ArrayList<>(pending);
    pending.clear();
    flushNow = false;
    return batch;
  }

  private void sendLoop(Sender self) {
    try (AckChannel channel = self.channel) {
      Batch batch;
      while ((batch = nextBatch(self)) != null) {
        send(channel, batch);
      }
    } catch (InterruptedException e) {
      dropRemaining(self);
    }
  }

  /** Waits for a batch to be due or handed over; null once closing and nothing is left. */
  private Batch nextBatch(Sender self) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      while (true) {
        if (Thread.interrupted()) {
          throw new InterruptedException(); // the flush deadline passed
        }
        if (self.begun != null) {
          Batch handed = new Batch(self.begun, true);
          self.begun = null;
          return handed;
        }
        if (self.claimed) {
          self.wake.await(); // a handler thread is writing its batch on this channel
          continue;
        }
        if (pending.isEmpty()) {
          if (closing) {
            self.idle = false;
            closed = true;
            return null;
          }
          self.idle = true;
          if (ticking == null && maxDelayNanos > 0 && heldJobs.getAsInt() > 0) {
            // Jobs in hand will be acked: look every delay rather than be woken for each batch.
            ticking = self;
            try {
              self.wake.awaitNanos(maxDelayNanos);
            } finally {
              if (ticking == self) {
                ticking = null;
              }
            }
          } else {
            self.wake.await();
          }
          continue;
        }
        long wait = oldestNanos + maxDelayNanos - System.nanoTime();
        if (closing || flushNow || pending.size() >= batchSize || wait <= 0) {
          self.idle = false;
          return new Batch(takePending(), false);
        }
        self.idle = true;
        self.wake.awaitNanos(wait);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Sends one batch, retrying transport and server errors with backoff while attempts and the
   * flush deadline allow.
   */
  private void send(AckChannel channel, Batch batch) throws InterruptedException {
    List<String> ids = batch.ids();
    for (int attempt = 1; ; attempt++) {
      try {
        List<String> notFound = attempt == 1 && batch.begun() ? channel.finish() : channel.ackAll(ids);
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

  private void dropRemaining(Sender self) {
    lock.lock();
    try {
      self.idle = false; // its channel is closing: nobody may write on it any more
      closed = true;
      pending.clear(); // the server requeues these jobs when the stream closes
    } finally {
      lock.unlock();
    }
  }
}

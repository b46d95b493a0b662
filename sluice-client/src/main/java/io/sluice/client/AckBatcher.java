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
 * thread itself: waking a sender to write would put a thread wake-up, a long wait on a loaded
 * machine, between each batch and the server. Its answer is read by whoever writes the next
 * batch on that connection, by then long arrived, or by the sender once it has waited the answer
 * wait (at most 5 ms, never above the max delay); so a steady flow of batches wakes no sender.
 * For the same reason, while the worker holds jobs one idle sender waits with the max delay as
 * its timeout and looks again, so the first ack of a batch need not wake a sender to start the
 * delay clock (a worker holding one long job thus has a sender look every max delay); a worker
 * holding nothing has its senders wait untimed once their answers are read. With a max delay of
 * zero, every answer is read by its sender at once. Not the
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
  /**
   * The longest an answer is left for the next batch's writer to read before its sender reads
   * it; a failed ack is noticed, and sent again, this much later at most.
   */
  private static final long ANSWER_WAIT_CAP_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  /** How long senders get to stop once their connections are closed at the deadline. */
  private static final long ABORT_GRACE_MS = 1_000;

  private final int window;
  private final int threads;
  private final IntSupplier heldJobs;
  private final int batchSize;
  private final long maxDelayNanos;
  /** See {@link #ANSWER_WAIT_CAP_NANOS}; never above the max delay, and 0 when that is. */
  private final long answerWaitNanos;
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
  /** When the {@link #ticking} sender looks again at the latest. */
  private long tickingUntilNanos;

  /** A sender thread and its connection; the fields are guarded by {@link #lock}. */
  private final class Sender {
    final AckChannel channel;
    final Thread thread;
    final Condition wake = lock.newCondition();
    /** In {@link #nextBatch} with no work in hand: unless claimed, its channel is free to write. */
    boolean idle;
    /** A handler or the take thread is writing a batch on this sender's channel. */
    boolean claimed;
    /** The batch written on this channel whose answer nobody has read yet, or null. */
    List<String> begun;
    /** When {@link #begun} was written. */
    long begunAtNanos;
    /** A batch whose answer could not be read, for this sender to send again. */
    List<String> retry;

    Sender(AckChannel channel, String name) {
      this.channel = channel;
      this.thread = new Thread(() -> sendLoop(this), name);
      thread.setDaemon(true);
    }
  }

  /**
   * A batch for a sender to send on {@code on}'s channel: its own, or, for an answer left unread
   * there, another idle sender's, claimed for the time it takes.
   */
  private record Batch(List<String> ids, boolean begun, Sender on) {}

  /**
   * @param window the server's prefetch window
   * @param threads the handler threads
   * @param heldJobs the jobs the worker holds (running or waiting for a thread)
   */
  AckBatcher(JobsApi jobs, int batchSize, Duration maxDelay, String threadName, int window,
      int threads, IntSupplier heldJobs) {
    this(jobs, batchSize, maxDelay, Duration.ofNanos(ANSWER_WAIT_CAP_NANOS), threadName, window,
        threads, heldJobs);
  }

  /** As above, with the cap on the answer wait chosen (tests). */
  AckBatcher(JobsApi jobs, int batchSize, Duration maxDelay, Duration answerWaitCap,
      String threadName, int window, int threads, IntSupplier heldJobs) {
    this.batchSize = batchSize;
    this.maxDelayNanos = maxDelay.toNanos();
    this.answerWaitNanos = Math.min(maxDelayNanos, answerWaitCap.toNanos());
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
    Claim claim;
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
      claim = claimIfDue();
      if (claim == null && first && ticking == null) {
        wakeIdleSender(); // starts the delay clock
      }
    } finally {
      lock.unlock();
    }
    if (claim != null) {
      write(claim);
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
    Claim claim;
    lock.lock();
    try {
      claim = claimIfDue();
    } finally {
      lock.unlock();
    }
    if (claim != null) {
      write(claim);
    }
  }

  /**
   * A sender's channel reserved for a handler or the take thread to write {@code batch} on, after
   * reading the answer to {@code unanswered}, the batch written there before, if not read yet.
   */
  private record Claim(Sender writer, List<String> unanswered, List<String> batch) {}

  /**
   * Under the lock: when the pending batch is due, an idle sender's channel reserved for the
   * caller to write it on; with none idle, the batch is left to the senders and null returned, as
   * it is when nothing is due.
   */
  private Claim claimIfDue() {
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
      return null;
    }
    List<String> unanswered = writer.begun;
    writer.begun = null;
    return new Claim(writer, unanswered, takePending());
  }

  /**
   * Reads the answer left on the claimed channel (already arrived: see {@link #claimIdleSender}),
   * writes the batch, and hands the channel back: its sender reads the batch's answer only if no
   * later batch's writer has done so within the answer wait, so a batch and its answer usually
   * cost no sender a wake-up. A write that did not go out, an answer that could not be read, or
   * no answer wait at all wake the sender at once.
   */
  private void write(Claim claim) {
    Sender writer = claim.writer();
    boolean answered = false;
    boolean begun = false;
    try {
      answered = claim.unanswered() == null || finishAnswer(writer.channel);
      if (answered) {
        writer.channel.begin(claim.batch()); // outside the lock: others keep adding meanwhile
        begun = true;
      }
    } catch (RuntimeException e) {
      // Not the caller's to handle (a handler or the take thread): the sender sends it again.
      LOG.warn("could not write an ack batch; its sender sends it again: {}", e.toString());
    } finally {
      handBackWritten(claim, answered, begun);
    }
  }

  private void handBackWritten(Claim claim, boolean answered, boolean begun) {
    Sender writer = claim.writer();
    lock.lock();
    try {
      writer.claimed = false;
      if (!answered || !begun) {
        // The sender sends what could not be settled here again, with its retries: the batch
        // not written, or else the batch whose answer failed, this batch then going back to
        // pending (the sender is signalled, so it usually sends both, in that order).
        writer.retry = answered ? claim.batch() : claim.unanswered();
        if (!answered) {
          if (pending.isEmpty()) {
            oldestNanos = System.nanoTime();
          }
          pending.addAll(0, claim.batch());
          flushNow = true;
        }
        writer.wake.signal();
        return;
      }
      writer.begun = claim.batch();
      writer.begunAtNanos = System.nanoTime();
      if (answerWaitNanos == 0 || !writer.channel.written()) {
        writer.wake.signal();
      } else if (ticking == null) {
        writer.wake.signal(); // it becomes the sender that looks
      } else if (tickingUntilNanos - writer.begunAtNanos > answerWaitNanos) {
        ticking.wake.signal(); // to look sooner than it planned
      }
    } finally {
      lock.unlock();
    }
  }

  /** Reads the answer to the ack begun on {@code channel}; false if it must be sent again. */
  private static boolean finishAnswer(AckChannel channel) {
    try {
      logNotFound(channel.finishWithoutResending());
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static void logNotFound(List<String> notFound) {
    if (!notFound.isEmpty()) {
      LOG.debug("{} acknowledged jobs were no longer in flight (requeued or deleted): {}",
          notFound.size(), notFound);
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
   * True when a sender waits idle on an open connection, with no answer left there still on its
   * way: a batch that becomes due is then written at once by the thread that makes it due. For
   * tests, which need that to be deterministic.
   */
  boolean readyToWrite() {
    lock.lock();
    try {
      return senders.stream().anyMatch(this::claimable);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Under the lock: whether a handler or the take thread may write on {@code sender}'s channel
   * now. Not while an answer left there is still on its way: they must not wait on the network.
   */
  private boolean claimable(Sender sender) {
    return sender.idle && !sender.claimed && sender.retry == null
        && sender.channel.connected()
        && (sender.begun == null || sender.channel.written() && sender.channel.answerArrived());
  }

  /**
   * A {@link #claimable} sender, now reserved for the caller's write; or null. One with no answer
   * left unread comes first, then the one whose answer has waited longest.
   */
  private Sender claimIdleSender() {
    Sender best = null;
    for (Sender sender : senders) {
      if (!claimable(sender)) {
        continue;
      }
      if (sender.begun == null) {
        best = sender;
        break;
      }
      if (best == null || sender.begunAtNanos < best.begunAtNanos) {
        best = sender;
      }
    }
    if (best != null) {
      best.claimed = true; // its thread stays waiting: the writer hands the channel back
    }
    return best;
  }

  private void wakeIdleSender() {
    for (Sender sender : senders) {
      if (sender.idle && !sender.claimed) {
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
        send(batch.on().channel, batch);
        if (batch.on() != self) {
          handBack(batch.on());
        }
      }
    } catch (InterruptedException e) {
      dropRemaining(self);
    }
  }

  /**
   * Waits for a batch to be due, an answer to read or a batch to send again; null once closing
   * and nothing is left.
   */
  private Batch nextBatch(Sender self) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      while (true) {
        if (Thread.interrupted()) {
          throw new InterruptedException(); // the flush deadline passed
        }
        self.idle = true;
        if (self.claimed) {
          // Another thread is using this channel; it wakes this sender when there is something
          // to do at once.
          if (answerWaitNanos > 0) {
            tick(self, answerWaitNanos);
          } else {
            self.wake.await();
          }
          continue;
        }
        if (self.retry != null) {
          self.idle = false;
          Batch again = new Batch(self.retry, false, self);
          self.retry = null;
          return again;
        }
        long now = System.nanoTime();
        boolean pendingDue = !pending.isEmpty() && (closing || flushNow
            || pending.size() >= batchSize || now - oldestNanos >= maxDelayNanos);
        Batch answer = unreadAnswerDue(self, now, pendingDue);
        if (answer != null) {
          self.idle = false;
          return answer;
        }
        if (pendingDue) {
          self.idle = false;
          return new Batch(takePending(), false, self);
        }
        long wait = Long.MAX_VALUE; // until an answer this sender may read, or the batch, is due
        for (Sender sender : senders) {
          if (sender.begun != null && (sender == self || sender.idle && !sender.claimed)) {
            wait = Math.min(wait, sender.begunAtNanos + answerWaitNanos - now);
          }
        }
        if (!pending.isEmpty()) {
          self.wake.awaitNanos(Math.min(wait, oldestNanos + maxDelayNanos - now));
        } else if (closing) {
          self.idle = false;
          closed = true;
          return null;
        } else if (wait != Long.MAX_VALUE) {
          tick(self, wait); // an answer is left unread; meanwhile this sender looks for acks
        } else if (ticking == null && maxDelayNanos > 0 && heldJobs.getAsInt() > 0) {
          // Jobs in hand will be acked: look every delay rather than be woken for each batch.
          tick(self, maxDelayNanos);
        } else {
          self.wake.await();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Under the lock: an answer left unread that is due, this sender's own first, as a batch for
   * {@code self} to finish; another idle sender's channel is claimed for it. Every answer is due
   * once closing, and this sender's own when its pending batch is, which must go after it on
   * the same channel.
   */
  private Batch unreadAnswerDue(Sender self, long now, boolean pendingDue) {
    if (self.begun != null
        && (pendingDue || closing || now - self.begunAtNanos >= answerWaitNanos)) {
      Batch answer = new Batch(self.begun, true, self);
      self.begun = null;
      return answer;
    }
    for (Sender other : senders) {
      if (other != self && other.idle && !other.claimed && other.retry == null
          && other.begun != null && (closing || now - other.begunAtNanos >= answerWaitNanos)) {
        other.claimed = true;
        Batch answer = new Batch(other.begun, true, other);
        other.begun = null;
        return answer;
      }
    }
    return null;
  }

  /** Gives back another sender's channel, claimed to read an answer left there. */
  private void handBack(Sender other) {
    lock.lock();
    try {
      other.claimed = false;
      other.wake.signal(); // it may wait untimed for the claim to end (no answer wait)
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code nanos}, as the ticking sender if there is none (see {@link #ticking}). */
  private void tick(Sender self, long nanos) throws InterruptedException {
    boolean ticks = ticking == null;
    if (ticks) {
      ticking = self;
      tickingUntilNanos = System.nanoTime() + nanos;
    }
    try {
      self.wake.awaitNanos(nanos);
    } finally {
      if (ticks && ticking == self) {
        ticking = null;
      }
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
        logNotFound(attempt == 1 && batch.begun() ? channel.finish() : channel.ackAll(ids));
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
      self.begun = null;
      self.retry = null;
      closed = true;
      pending.clear(); // the server requeues these jobs when the stream closes
    } finally {
      lock.unlock();
    }
  }
}

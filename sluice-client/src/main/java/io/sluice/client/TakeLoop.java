package io.sluice.client;

import io.sluice.client.model.Job;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
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
 */
final class TakeLoop implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(TakeLoop.class);

  private final JobsApi jobs;
  private final List<String> queues;
  private final int prefetch;
  private final String workerId;
  private final Semaphore permits;
  private final Consumer<Job> dispatch;
  private final Runnable handOff;
  private final Runnable drained;
  private final ReconnectDelay delay;
  private final BooleanSupplier stopping;
  private volatile TakeStream current;
  private volatile boolean closed;

  /**
   * @param handOff told on the loop's thread to pass on the jobs dispatched so far
   * @param drained told on the loop's thread when it read all that arrived and waits for more,
   *     after {@code handOff}
   */
  TakeLoop(JobsApi jobs, List<String> queues, int prefetch, String workerId, Semaphore permits,
      Consumer<Job> dispatch, Runnable handOff, Runnable drained, ReconnectDelay delay,
      BooleanSupplier stopping) {
    this.jobs = jobs;
    this.queues = queues;
    this.prefetch = prefetch;
    this.workerId = workerId;
    this.permits = permits;
    this.dispatch = dispatch;
    this.handOff = handOff;
    this.drained = drained;
    this.delay = delay;
    this.stopping = stopping;
  }

  @Override
  public void run() {
    while (!closed) {
      long retryAfterMs = -1;
      try {
        current = jobs.take(queues, prefetch, workerId);
        if (closed) {
          current.close(); // close() ran while the stream was opening
          return;
        }
        current.onReadMayWait(handOff);
        current.onDrained(drained);
        delay.reset();
        LOG.debug("take stream open on {}", queues.isEmpty() ? "all queues" : queues);
        drain(current);
        if (!closed) {
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
        TakeStream stream = current;
        current = null;
        if (stream != null) {
          stream.close();
        }
        Thread.interrupted(); // an interrupt that aborted a read must not abort the wait below
      }
      if (!closed && !pause(retryAfterMs >= 0 ? jittered(retryAfterMs) : delay.nextMs())) {
        return;
      }
    }
  }

  private void drain(TakeStream stream) throws InterruptedException {
    try {
      Job job;
      while ((job = stream.next()) != null) {
        if (stopping.getAsBoolean()) {
          continue; // left unstarted: the server requeues it when the stream closes
        }
        if (!permits.tryAcquire()) {
          handOff.run(); // the jobs in hand free the permits
          permits.acquire();
        }
        dispatch.accept(job);
      }
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
    TakeStream stream = current;
    if (stream != null && stream.idleNanos() > idleNanos) {
      LOG.warn("take stream silent for {} ms; reconnecting", idleNanos / 1_000_000);
      stream.close();
    }
  }

  /** Stops reconnecting and closes the open stream, so the server requeues what it holds. */
  void close(Thread loopThread) {
    closed = true;
    TakeStream stream = current;
    if (stream != null) {
      stream.close();
    }
    loopThread.interrupt();
  }
}

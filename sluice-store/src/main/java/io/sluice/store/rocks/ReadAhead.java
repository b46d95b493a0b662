package io.sluice.store.rocks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs a producer on a thread of its own ({@code sluice-read-ahead}) and hands what it produces
 * to a consumer on the calling thread in batches, so that reading and decoding records overlaps
 * with whatever the caller does with them (start-up recovery on a second core). The consumer
 * sees every item, in order, on one thread; a failure on either side ends both and is rethrown
 * to the caller.
 */
final class ReadAhead<T> {
  private static final int BATCH = 512;
  private static final int BATCHES_AHEAD = 16;

  /** Feeds every item to the sink it is given, then returns. */
  @FunctionalInterface
  interface Producer<T> {
    void produce(Consumer<T> sink);
  }

  private final BlockingQueue<List<T>> batches = new ArrayBlockingQueue<>(BATCHES_AHEAD);
  /** Sent after the last batch, or after a failure; compared by identity. */
  private final List<T> end = new ArrayList<>(0);
  private volatile Throwable producerFailure;
  private volatile boolean consumerGone;

  private ReadAhead() {}

  static <T> void run(Producer<T> producer, Consumer<T> consumer) {
    new ReadAhead<T>().drive(producer, consumer);
  }

  private void drive(Producer<T> producer, Consumer<T> consumer) {
    Thread thread = new Thread(() -> produceAll(producer), "sluice-read-ahead");
    thread.setDaemon(true);
    thread.start();
    try {
      for (List<T> batch = take(); batch != end; batch = take()) {
        batch.forEach(consumer);
      }
    } catch (RuntimeException | Error e) {
      consumerGone = true;
      batches.clear();
      throw e;
    } finally {
      joinQuietly(thread);
    }
    Throwable failure = producerFailure;
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (failure instanceof Error error) {
      throw error;
    }
  }

  private void produceAll(Producer<T> producer) {
    List<T> batch = new ArrayList<>(BATCH);
    try {
      producer.produce(item -> {
        if (consumerGone) {
          throw new IllegalStateException("the consumer stopped");
        }
        batch.add(item);
        if (batch.size() == BATCH) {
          put(new ArrayList<>(batch));
          batch.clear();
        }
      });
    } catch (RuntimeException | Error e) {
      // Recorded before the end marker goes out: the consumer must never take a cut-off read
      // (an OutOfMemoryError while decoding, say) for a complete one.
      if (!consumerGone) {
        producerFailure = e;
      }
    } finally {
      if (!batch.isEmpty()) {
        put(batch);
      }
      put(end);
    }
  }

  private void put(List<T> batch) {
    try {
      while (!consumerGone && !batches.offer(batch, 100, TimeUnit.MILLISECONDS)) {
        // Waits for room; gives up once the consumer has stopped.
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      consumerGone = true;
    }
  }

  private List<T> take() {
    try {
      return batches.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading ahead", e);
    }
  }

  /** Waits for the producer even when interrupted: it may still hold the store's iterator. */
  private static void joinQuietly(Thread thread) {
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}

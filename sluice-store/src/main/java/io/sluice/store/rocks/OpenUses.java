package io.sluice.store.rocks;

import io.sluice.engine.store.StorageException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps the database open while anything uses it. RocksDB's native handles must not be closed
 * under a read in progress (the process would crash in native code), and reads run on other
 * threads than the one shutting down, e.g. a count of a million jobs on an HTTP worker thread.
 * Every use {@link #enter enters} and {@link #exit exits}; a scan stays entered until it is
 * closed and {@link #checkOpen checks} before each step, so that closing ends it at its next
 * step instead of waiting for it to finish.
 */
final class OpenUses {
  /** Not a LongAdder: its sum is no snapshot and could see a use undone but not begun. */
  private final AtomicLong open = new AtomicLong();
  private volatile boolean closing;

  /** Registers a use; fails once closing has begun. */
  void enter() {
    open.incrementAndGet();
    if (closing) {
      open.decrementAndGet();
      throw closed();
    }
  }

  void exit() {
    open.decrementAndGet();
  }

  /** For a long scan, before each step: fails once closing has begun. */
  void checkOpen() {
    if (closing) {
      throw closed();
    }
  }

  /** Refuses new uses from now on, and fails every {@link #checkOpen} after this returns. */
  void beginClosing() {
    closing = true;
  }

  /**
   * Refuses new uses and waits, at most {@code timeoutMillis}, for the current ones to exit.
   * @return true when nothing uses the database any more
   */
  boolean closeAndAwait(long timeoutMillis) throws InterruptedException {
    beginClosing();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (open.get() > 0) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(1);
    }
    return true;
  }

  private static StorageException closed() {
    return new StorageException("a read", new IllegalStateException("the store is closing"));
  }
}

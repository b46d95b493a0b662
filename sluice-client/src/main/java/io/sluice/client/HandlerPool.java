package io.sluice.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads that run a worker's handlers: at most {@code size} at once, started as needed.
 *
 * <p>Not a {@code ThreadPoolExecutor}: its queue wakes a parked thread for every job handed in,
 * and each thread that takes a job while others wait wakes the next. A handler that takes
 * microseconds then costs more in wake-ups than in work: in {@code sluice-bench --workload
 * java-worker}, parking and unparking were 80% of the handler threads' time. Here a job wakes a
 * thread only when no thread is already on its way to the queue, so jobs arriving together wake
 * one thread, not one each. A thread that takes a job while more wait wakes another, so slow jobs
 * still get every thread.
 *
 * <p>Spinning a while before parking, to catch the next job of a burst without a wake-up, was
 * tried and not kept: 20 µs saved nothing measurable in that bench and 100 µs lost a third.
 */
final class HandlerPool {
  private static final Logger LOG = LoggerFactory.getLogger(HandlerPool.class);

  private final int size;
  private final ThreadFactory factory;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition allStopped = lock.newCondition();
  private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
  /** Parked threads; the last to park is woken first, its caches the warmest. */
  private final ArrayDeque<Runner> parked = new ArrayDeque<>();
  private final List<Runner> runners = new ArrayList<>();
  /** Threads started or woken that have not yet looked at the queue: each will take a job. */
  private int searching;
  private boolean shutdown;
  /** Set by shutdownNow: a running job keeps its interrupt instead of having it cleared. */
  private volatile boolean stopNow;

  /** One thread of the pool. */
  private final class Runner implements Runnable {
    final Thread thread;
    /** Set by whoever takes this runner off {@link #parked}: its park is over. */
    volatile boolean woken;
    /** Read and set by {@link #resume} only, the first time by the one that made the runner. */
    boolean started;

    Runner() {
      this.thread = factory.newThread(this);
    }

    @Override
    public void run() {
      work(this);
    }
  }

  HandlerPool(int size, ThreadFactory factory) {
    if (size < 1) {
      throw new IllegalArgumentException("a pool needs at least one thread");
    }
    this.size = size;
    this.factory = factory;
  }

  /** Queues {@code task}; throws {@link RejectedExecutionException} once shut down. */
  void execute(Runnable task) {
    Runner toWake = null;
    lock.lock();
    try {
      if (shutdown) {
        throw new RejectedExecutionException("the worker's handler threads are shut down");
      }
      tasks.addLast(task);
      if (searching == 0) {
        toWake = wakeOrStart();
        if (toWake == null && runners.isEmpty()) {
          tasks.removeLast();
          throw new RejectedExecutionException("no handler thread could be made");
        }
      }
    } finally {
      lock.unlock();
    }
    if (!resume(toWake)) {
      refuseIfNoThread(task);
    }
  }

  /** A thread could not start: with none left to run {@code task}, takes it back and refuses it. */
  private void refuseIfNoThread(Runnable task) {
    lock.lock();
    try {
      if (!runners.isEmpty() || !tasks.removeLastOccurrence(task)) {
        return;
      }
    } finally {
      lock.unlock();
    }
    throw new RejectedExecutionException("no handler thread could be started");
  }

  /** Takes no more tasks; those queued still run, then the threads end. */
  void shutdown() {
    List<Runner> toWake;
    lock.lock();
    try {
      shutdown = true;
      toWake = unparkAll();
    } finally {
      lock.unlock();
    }
    toWake.forEach(this::resume);
  }

  /** As {@link #shutdown}, but drops the queued tasks and interrupts the running ones. */
  void shutdownNow() {
    List<Runner> toWake;
    lock.lock();
    try {
      shutdown = true;
      stopNow = true;
      tasks.clear();
      toWake = unparkAll();
      for (Runner runner : runners) {
        runner.thread.interrupt();
      }
    } finally {
      lock.unlock();
    }
    toWake.forEach(this::resume);
  }

  /** After a shutdown: true once every thread has ended, false if {@code nanos} passed first. */
  boolean awaitTermination(long nanos) throws InterruptedException {
    lock.lock();
    try {
      while (!runners.isEmpty()) {
        if (nanos <= 0) {
          return false;
        }
        nanos = allStopped.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Threads started and not yet ended, for tests. */
  int threads() {
    lock.lock();
    try {
      return runners.size();
    } finally {
      lock.unlock();
    }
  }

  /** Under the lock: a parked thread to wake, else a new one if the pool has room, else null. */
  private Runner wakeOrStart() {
    Runner runner = parked.pollLast();
    if (runner == null) {
      if (runners.size() >= size) {
        return null;
      }
      try {
        runner = new Runner();
      } catch (RuntimeException | Error e) {
        LOG.error("could not make a handler thread; jobs wait for the running ones", e);
        return null;
      }
      runners.add(runner);
    }
    runner.woken = true;
    searching++;
    return runner;
  }

  /** Under the lock: every parked thread, taken off the list and counted as searching. */
  private List<Runner> unparkAll() {
    List<Runner> all = new ArrayList<>(parked);
    parked.clear();
    for (Runner runner : all) {
      runner.woken = true;
      searching++;
    }
    return all;
  }

  /**
   * Outside the lock: unparks a woken thread, or starts a new one; false when a thread could not
   * be started (the JVM out of threads), which is logged.
   */
  private boolean resume(Runner runner) {
    if (runner == null) {
      return true;
    }
    if (runner.started) {
      LockSupport.unpark(runner.thread);
      return true;
    }
    runner.started = true;
    try {
      runner.thread.start();
      return true;
    } catch (RuntimeException | Error e) {
      LOG.error("could not start a handler thread; jobs wait for the running ones", e);
      forget(runner);
      return false;
    }
  }

  /**
   * Drops a runner whose thread never started: it must not count as coming for the queue, so a
   * parked thread is woken in its place when jobs wait and nobody else is coming.
   */
  private void forget(Runner runner) {
    Runner instead = null;
    lock.lock();
    try {
      searching--;
      runners.remove(runner);
      if (runners.isEmpty()) {
        allStopped.signalAll();
      }
      if (!tasks.isEmpty() && searching == 0) {
        instead = parked.pollLast();
        if (instead != null) {
          instead.woken = true;
          searching++;
        }
      }
    } finally {
      lock.unlock();
    }
    if (instead != null) {
      LockSupport.unpark(instead.thread);
    }
  }

  private void work(Runner me) {
    boolean searchingNow = true; // counted by whoever started or woke this thread
    lock.lock();
    try {
      while (true) {
        Runnable task = tasks.pollFirst();
        if (task != null) {
          if (searchingNow) {
            searching--;
            searchingNow = false;
          }
          Runner helper = !tasks.isEmpty() && searching == 0 ? wakeOrStart() : null;
          lock.unlock();
          try {
            // An interrupt left from the thread's last job must not reach this one, unless
            // shutdownNow sent it (checked after clearing: it may come in between).
            if (Thread.interrupted() && stopNow) {
              Thread.currentThread().interrupt();
            }
            resume(helper);
            run(task);
          } finally {
            lock.lock();
          }
          continue;
        }
        if (shutdown) {
          return;
        }
        if (searchingNow) {
          searching--;
          searchingNow = false;
        }
        me.woken = false;
        parked.addLast(me);
        lock.unlock();
        try {
          park(me);
        } finally {
          lock.lock();
        }
        searchingNow = true; // the waker counted this thread as searching
      }
    } finally {
      if (searchingNow) {
        searching--;
      }
      runners.remove(me);
      if (runners.isEmpty()) {
        allStopped.signalAll();
      }
      lock.unlock();
    }
  }

  private static void park(Runner me) {
    while (!me.woken) {
      LockSupport.park(me);
      // An interrupt meant for a handler that has finished would make every park return at
      // once; shutdownNow wakes parked threads itself.
      Thread.interrupted();
    }
  }

  private static void run(Runnable task) {
    try {
      task.run();
    } catch (Throwable error) {
      Thread thread = Thread.currentThread();
      try {
        thread.getUncaughtExceptionHandler().uncaughtException(thread, error);
      } catch (Throwable ignored) {
        // The thread must go on serving the queue whatever the handler does.
      }
    }
  }
}

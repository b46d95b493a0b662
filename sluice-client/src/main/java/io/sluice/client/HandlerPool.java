package io.sluice.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
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
 * one thread, not one each. A thread that takes a job while more wait wakes another when the
 * threads already running would take longer than {@link #HELP_NANOS} to reach the last one, by
 * the jobs' average time: slow jobs still get every thread, and a burst of quick ones is run by
 * one thread without a wake-up per job. So that a job taking far longer than the average cannot
 * hold up the jobs queued behind it, such a wake is saved only while a parked thread watches:
 * the watcher parks with a timeout of {@link #WATCH_NANOS} and takes any job still waiting when
 * it looks. A thread becomes the watcher when it parks while jobs run or just after running
 * one, and keeps watching while each look finds jobs finished since the last.
 *
 * <p>Spinning a while before parking, to catch the next job of a burst without a wake-up, was
 * tried and not kept: 20 µs saved nothing measurable in that bench and 100 µs lost a third.
 *
 * <p>A job that arrives while no thread runs or is on its way, a watcher parks, and jobs take
 * less than {@link #HELP_NANOS} on average, may be run by the thread that hands it in ({@link
 * #runHereIfQuick}): a stream of quick jobs then wakes no thread at all. It counts as one of the
 * {@code size} running. Should it run longer than {@link #WATCH_NANOS}, the watcher's look tells
 * {@code onCallerStalled}, once per such job, so the caller's other work (reading the take
 * stream) can be taken over meanwhile.
 */
final class HandlerPool {
  private static final Logger LOG = LoggerFactory.getLogger(HandlerPool.class);
  /** Queued work the running threads would need longer than this to reach wakes another. */
  static final long HELP_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
  /** How often the watcher looks for jobs left waiting while the pool is busy. */
  static final long WATCH_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

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
  /** Threads running a job. */
  private int active;
  /** Moving average of a job's time; until measured, as if each were worth a wake-up. */
  private long averageJobNanos = HELP_NANOS;
  /** Jobs finished so far, for the watcher to see whether any ran since its last look. */
  private long finished;
  /** The parked thread that looks again after {@link #WATCH_NANOS}, or null. */
  private Runner watcher;
  private final AtomicLong wakeUps = new AtomicLong();
  private boolean shutdown;
  /** Set by shutdownNow: a running job keeps its interrupt instead of having it cleared. */
  private volatile boolean stopNow;
  /** Told by the watcher when a job run by its caller has run longer than WATCH_NANOS. */
  private Consumer<BooleanSupplier> onCallerStalled;
  /** Counts the jobs run by their callers, so that a late look at a stall can tell which. */
  private long callerRuns;
  /** The thread running a job in runHereIfQuick, or null. */
  private Thread caller;
  /** When the caller's job started. */
  private long callerSince;
  /** Whether the caller's current job was reported stalled. */
  private boolean callerStallReported;

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

  /**
   * Lets {@link #runHereIfQuick} run jobs on their caller, {@code onStalled} being told (on a
   * pool thread, outside the pool's lock) when one of them runs longer than {@link #WATCH_NANOS},
   * with a check that is true for as long as that job still runs. Until this is called, every
   * job goes to the pool's threads.
   */
  void allowCallerRuns(Consumer<BooleanSupplier> onStalled) {
    lock.lock();
    try {
      onCallerStalled = onStalled;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs {@code task} on the calling thread and returns true when the pool would have one thread
   * run it anyway without help: none runs or is on its way, nothing is queued, a watcher parks,
   * and jobs take less than {@link #HELP_NANOS} on average. Else returns false without running
   * it. A pool of one thread never runs jobs on the caller (the watcher could not step in).
   */
  boolean runHereIfQuick(Runnable task) {
    lock.lock();
    try {
      if (onCallerStalled == null || shutdown || size < 2 || active > 0 || searching > 0
          || watcher == null || !tasks.isEmpty() || averageJobNanos > HELP_NANOS) {
        return false;
      }
      caller = Thread.currentThread();
      callerRuns++;
      callerStallReported = false;
      active++;
      callerSince = System.nanoTime();
    } finally {
      lock.unlock();
    }
    Runner helper = null;
    try {
      run(task);
      // An interrupt the job left would abort the caller's own next wait; shutdownNow's stays.
      if (Thread.interrupted() && stopNow) {
        Thread.currentThread().interrupt();
      }
    } finally {
      long took = System.nanoTime() - callerSince;
      lock.lock();
      try {
        caller = null;
        jobDone(took);
        // Jobs queued meanwhile wait for nobody else when the pool was full with this one.
        if (!tasks.isEmpty() && searching == 0) {
          helper = wakeOrStart();
        }
        if (runners.isEmpty()) {
          allStopped.signalAll();
        }
      } finally {
        lock.unlock();
      }
      resume(helper);
    }
    return true;
  }

  /** Queues {@code task}; throws {@link RejectedExecutionException} once shut down. */
  void execute(Runnable task) {
    executeAll(List.of(task));
  }

  /**
   * Queues {@code batch}, waking at most one thread for all of it; throws {@link
   * RejectedExecutionException}, queuing none of it, once shut down or when no thread can run it.
   */
  void executeAll(List<Runnable> batch) {
    if (batch.isEmpty()) {
      return;
    }
    Runner toWake = null;
    lock.lock();
    try {
      if (shutdown) {
        throw new RejectedExecutionException("the worker's handler threads are shut down");
      }
      tasks.addAll(batch);
      if (searching == 0 && helpWanted()) {
        toWake = wakeOrStart();
        if (toWake == null && runners.isEmpty()) {
          takeBack(batch);
          throw new RejectedExecutionException("no handler thread could be made");
        }
      }
    } finally {
      lock.unlock();
    }
    if (!resume(toWake)) {
      refuseIfNoThread(batch);
    }
  }

  /** A thread could not start: with none left to run {@code batch}, takes it back, refusing it. */
  private void refuseIfNoThread(List<Runnable> batch) {
    lock.lock();
    try {
      if (!runners.isEmpty() || !takeBack(batch)) {
        return;
      }
    } finally {
      lock.unlock();
    }
    throw new RejectedExecutionException("no handler thread could be started");
  }

  /** Under the lock: removes {@code batch} from the queue if all of it is still there. */
  private boolean takeBack(List<Runnable> batch) {
    Iterator<Runnable> fromLast = tasks.descendingIterator();
    for (int i = batch.size() - 1; i >= 0; i--) {
      if (!fromLast.hasNext() || fromLast.next() != batch.get(i)) {
        return false;
      }
    }
    batch.forEach(task -> tasks.removeLast());
    return true;
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
      if (caller != null) {
        caller.interrupt();
      }
    } finally {
      lock.unlock();
    }
    toWake.forEach(this::resume);
  }

  /**
   * After a shutdown: true once every thread has ended and no job runs on a caller, false if
   * {@code nanos} passed first.
   */
  boolean awaitTermination(long nanos) throws InterruptedException {
    lock.lock();
    try {
      while (!runners.isEmpty() || caller != null) {
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

  /** Threads woken or started so far, for tests. */
  long wakeUps() {
    return wakeUps.get();
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
    if (active + searching >= size) {
      return null; // full: a job running on its caller is one of the size
    }
    Runner runner = takeParked();
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

  /**
   * Under the lock: the last thread to park, passing over the watcher unless it is the only one,
   * so that it keeps watching; null when none is parked.
   */
  private Runner takeParked() {
    Runner last = parked.pollLast();
    if (last == null || last != watcher) {
      return last;
    }
    Runner other = parked.pollLast();
    if (other == null) {
      watcher = null;
      return last;
    }
    parked.addLast(last);
    return other;
  }

  /**
   * Under the lock, with a job queued and nobody on the way to it: whether to wake another
   * thread. Not when threads are running, a watcher parks, and the running threads would reach
   * the last queued job within {@link #HELP_NANOS} at the average job's time.
   */
  private boolean helpWanted() {
    int takers = caller != null ? active - 1 : active; // a job on its caller takes none queued
    return takers == 0 || watcher == null
        || (long) tasks.size() * averageJobNanos > HELP_NANOS * takers;
  }

  /** Under the lock: every parked thread, taken off the list and counted as searching. */
  private List<Runner> unparkAll() {
    watcher = null;
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
    wakeUps.incrementAndGet();
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
        instead = takeParked();
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
    boolean watchedBefore = false;
    boolean ranJob = false; // since this thread last parked
    long finishedAtLook = 0;
    lock.lock();
    try {
      while (true) {
        Runnable task = active < size ? tasks.pollFirst() : null;
        if (task != null) {
          if (searchingNow) {
            searching--;
            searchingNow = false;
          }
          watchedBefore = false;
          ranJob = true;
          active++;
          Runner helper = !tasks.isEmpty() && searching == 0 && helpWanted() ? wakeOrStart() : null;
          long started = System.nanoTime();
          lock.unlock();
          try {
            // An interrupt left from the thread's last job must not reach this one, unless
            // shutdownNow sent it (checked after clearing: it may come in between).
            if (Thread.interrupted() && stopNow) {
              Thread.currentThread().interrupt();
            }
            resume(helper);
            started = System.nanoTime();
            run(task);
          } finally {
            lock.lock();
            jobDone(System.nanoTime() - started);
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
        // Watch while jobs run or have just run, so the next burst finds a watcher; after a
        // look, only if jobs finished since the last one (one long job is not watched for ever)
        // or a job runs on its caller and is not yet reported stalled.
        boolean watch = watcher == null && (watchedBefore
            ? finished != finishedAtLook || callerNotYetStalled()
            : active > 0 || ranJob);
        ranJob = false;
        if (watch) {
          watcher = me;
          finishedAtLook = finished;
        }
        watchedBefore = watch;
        me.woken = false;
        parked.addLast(me);
        lock.unlock();
        try {
          park(me, watch ? WATCH_NANOS : 0);
        } finally {
          lock.lock();
        }
        if (me.woken) {
          searchingNow = true; // the waker counted this thread as searching
          watchedBefore = false;
        } else {
          parked.remove(me); // the watcher's look: it takes any job left waiting
          if (watcher == me) {
            watcher = null;
          }
          BooleanSupplier stalled = callerStalled();
          if (stalled != null) {
            lock.unlock();
            try {
              onCallerStalled.accept(stalled);
            } catch (RuntimeException e) {
              LOG.error("could not take over from a stalled job's caller", e);
            } finally {
              lock.lock();
            }
          }
        }
      }
    } finally {
      if (searchingNow) {
        searching--;
      }
      if (watcher == me) {
        watcher = null;
      }
      runners.remove(me);
      if (runners.isEmpty()) {
        allStopped.signalAll();
      }
      lock.unlock();
    }
  }

  /** Under the lock: a job that ran for {@code took} nanoseconds is done. */
  private void jobDone(long took) {
    active--;
    finished++;
    averageJobNanos += (took - averageJobNanos) / 8;
  }

  /** Under the lock: a job runs on its caller, not yet reported stalled. */
  private boolean callerNotYetStalled() {
    return caller != null && !callerStallReported;
  }

  /**
   * Under the lock: what to tell, once per job, when the job running on its caller has run
   * longer than {@link #WATCH_NANOS}; else null.
   */
  private BooleanSupplier callerStalled() {
    if (caller == null || callerStallReported
        || System.nanoTime() - callerSince < WATCH_NANOS) {
      return null;
    }
    callerStallReported = true;
    long run = callerRuns;
    return () -> callerStillRuns(run);
  }

  private boolean callerStillRuns(long run) {
    lock.lock();
    try {
      return caller != null && callerRuns == run;
    } finally {
      lock.unlock();
    }
  }

  /** Parks until woken, or until {@code nanos} have passed when that is not 0. */
  private static void park(Runner me, long nanos) {
    long deadline = System.nanoTime() + nanos;
    while (!me.woken) {
      if (nanos == 0) {
        LockSupport.park(me);
      } else {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        LockSupport.parkNanos(me, left);
      }
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

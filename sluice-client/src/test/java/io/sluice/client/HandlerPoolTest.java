package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class HandlerPoolTest {
  private static final long SECONDS_10 = TimeUnit.SECONDS.toNanos(10);

  private final List<Thread> made = new CopyOnWriteArrayList<>();
  private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
  private final ThreadFactory factory = task -> {
    Thread thread = new Thread(task, "pool-test-" + made.size());
    thread.setDaemon(true);
    thread.setUncaughtExceptionHandler((t, e) -> uncaught.add(e));
    made.add(thread);
    return thread;
  };
  private HandlerPool pool;

  @AfterEach
  void stop() throws InterruptedException {
    if (pool != null) {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(SECONDS_10)).isTrue();
    }
  }

  @Test
  void startsThreadsOnlyAsJobsNeedThem() throws Exception {
    pool = new HandlerPool(8, factory);
    assertThat(pool.threads()).isZero();
    CountDownLatch ran = new CountDownLatch(1);
    pool.execute(ran::countDown);
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(pool.threads()).isEqualTo(1);
    assertThat(made).hasSize(1);
  }

  @Test
  void slowJobsGetEveryThreadButNoMore() throws Exception {
    pool = new HandlerPool(4, factory);
    CountDownLatch allRunning = new CountDownLatch(4);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(6);
    for (int i = 0; i < 6; i++) {
      pool.execute(() -> {
        mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
        allRunning.countDown();
        awaitQuietly(release);
        running.decrementAndGet();
        done.countDown();
      });
    }
    // Four jobs that wait for each other can only finish if four threads run them at once.
    assertThat(allRunning.await(10, TimeUnit.SECONDS)).isTrue();
    release.countDown();
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(mostAtOnce.get()).isEqualTo(4);
    assertThat(made).hasSize(4);
  }

  @Test
  void jobsHandedInWhileTheThreadsAreBusyStillRun() throws Exception {
    pool = new HandlerPool(2, factory);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(2 + 100);
    for (int i = 0; i < 2; i++) {
      pool.execute(() -> {
        awaitQuietly(release);
        done.countDown();
      });
    }
    for (int i = 0; i < 100; i++) {
      pool.execute(done::countDown);
    }
    release.countDown();
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void everyJobRunsOnceUnderManySubmitters() throws Exception {
    pool = new HandlerPool(3, factory);
    int perSubmitter = 20_000;
    AtomicInteger ran = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(4 * perSubmitter);
    List<Thread> submitters = new CopyOnWriteArrayList<>();
    for (int s = 0; s < 4; s++) {
      Thread submitter = new Thread(() -> {
        for (int i = 0; i < perSubmitter; i++) {
          pool.execute(() -> {
            ran.incrementAndGet();
            done.countDown();
          });
        }
      });
      submitters.add(submitter);
      submitter.start();
    }
    for (Thread submitter : submitters) {
      submitter.join();
    }
    assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(ran.get()).isEqualTo(4 * perSubmitter);
  }

  @Test
  void jobsHandedInWhileAThreadIsOnItsWayStartNoOther() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    // Threads that are slow to reach the queue, as a woken thread is on a loaded machine.
    pool = new HandlerPool(8, task -> factory.newThread(() -> {
      awaitQuietly(gate);
      task.run();
    }));
    CountDownLatch done = new CountDownLatch(5);
    for (int i = 0; i < 5; i++) {
      pool.execute(done::countDown);
    }
    assertThat(made).hasSize(1);
    gate.countDown();
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aThreadThatCannotStartLeavesTheJobToTheOthersOrRefusesIt() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    ThreadFactory failingSecond = task -> attempts.incrementAndGet() == 2
        ? startedAlready()
        : factory.newThread(task);
    pool = new HandlerPool(2, failingSecond);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(2);
    pool.execute(() -> {
      awaitQuietly(release);
      done.countDown();
    });
    // The first thread takes this one's predecessor and tries a helper for it, which fails:
    // it stays queued for the first thread.
    pool.execute(done::countDown);
    release.countDown();
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(attempts.get()).isGreaterThanOrEqualTo(2);

    HandlerPool none = new HandlerPool(1, task -> startedAlready());
    AtomicInteger ran = new AtomicInteger();
    assertThatThrownBy(() -> none.execute(ran::incrementAndGet))
        .isInstanceOf(RejectedExecutionException.class);
    assertThat(none.awaitTermination(SECONDS_10)).isTrue();
    assertThat(ran.get()).isZero();
  }

  @Test
  void anInterruptLeftByOneJobDoesNotReachTheNext() throws Exception {
    pool = new HandlerPool(1, factory);
    CountDownLatch secondQueued = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    AtomicInteger secondInterrupted = new AtomicInteger(-1);
    pool.execute(() -> {
      awaitQuietly(secondQueued);
      Thread.currentThread().interrupt(); // as a handler's own timeout might, too late
    });
    pool.execute(() -> {
      secondInterrupted.set(Thread.currentThread().isInterrupted() ? 1 : 0);
      done.countDown();
    });
    secondQueued.countDown();
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(secondInterrupted.get()).isZero();
  }

  /** A thread whose start() throws, as when the JVM can make no more. */
  private static Thread startedAlready() {
    Thread thread = new Thread(() -> { });
    thread.start();
    return thread;
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void aJobThatThrowsIsReportedAndTheThreadGoesOn() throws Exception {
    pool = new HandlerPool(1, factory);
    pool.execute(() -> {
      throw new IllegalStateException("handler bug");
    });
    CountDownLatch next = new CountDownLatch(1);
    pool.execute(next::countDown);
    assertThat(next.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(uncaught).singleElement().satisfies(
        e -> assertThat(e).hasMessage("handler bug"));
    assertThat(made).hasSize(1);
  }

  @Test
  void shutdownRunsWhatIsQueuedThenEndsTheThreadsAndRefusesMore() throws Exception {
    pool = new HandlerPool(1, factory);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    pool.execute(() -> {
      awaitQuietly(release);
      ran.incrementAndGet();
    });
    pool.execute(ran::incrementAndGet);
    pool.shutdown();
    assertThatThrownBy(() -> pool.execute(ran::incrementAndGet))
        .isInstanceOf(RejectedExecutionException.class);
    assertThat(pool.awaitTermination(TimeUnit.MILLISECONDS.toNanos(50))).isFalse();
    release.countDown();
    assertThat(pool.awaitTermination(SECONDS_10)).isTrue();
    assertThat(ran.get()).isEqualTo(2);
    assertThat(pool.threads()).isZero();
  }

  @Test
  void shutdownEndsParkedThreads() throws Exception {
    pool = new HandlerPool(4, factory);
    CountDownLatch ran = new CountDownLatch(1);
    pool.execute(ran::countDown);
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    awaitParked(made.get(0));
    pool.shutdown();
    assertThat(pool.awaitTermination(SECONDS_10)).isTrue();
    made.get(0).join(10_000);
    assertThat(made.get(0).isAlive()).isFalse();
  }

  @Test
  void shutdownNowInterruptsRunningJobsAndDropsQueuedOnes() throws Exception {
    pool = new HandlerPool(1, factory);
    CountDownLatch started = new CountDownLatch(1);
    AtomicInteger interrupted = new AtomicInteger();
    AtomicInteger queuedRan = new AtomicInteger();
    pool.execute(() -> {
      started.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        interrupted.incrementAndGet();
      }
    });
    pool.execute(queuedRan::incrementAndGet);
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    pool.shutdownNow();
    assertThat(pool.awaitTermination(SECONDS_10)).isTrue();
    assertThat(interrupted.get()).isEqualTo(1);
    assertThat(queuedRan.get()).isZero();
  }

  @Test
  void aStrayInterruptDoesNotKeepAnIdleThreadBusy() throws Exception {
    pool = new HandlerPool(1, factory);
    CountDownLatch ran = new CountDownLatch(1);
    pool.execute(ran::countDown);
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    Thread thread = made.get(0);
    awaitParked(thread);
    thread.interrupt();
    // Parked again, not looping on a park that returns at once (which shows in every sample).
    Thread.sleep(20);
    int notParked = 0;
    for (int i = 0; i < 200; i++) {
      if (thread.getState() != Thread.State.WAITING) {
        notParked++;
      }
      Thread.sleep(1);
    }
    assertThat(notParked).as("samples of the idle thread not parked").isLessThan(20);
    CountDownLatch next = new CountDownLatch(1);
    pool.execute(next::countDown);
    assertThat(next.await(10, TimeUnit.SECONDS)).isTrue();
  }

  /** Quick jobs keep one thread busy: a burst wakes one thread, not one per job. */
  @Test
  void aBurstOfQuickJobsWakesOneThreadAndTheWatcherStopsOnceIdle() throws Exception {
    pool = new HandlerPool(16, factory);
    runQuickBursts(100); // the average job time is measured, and a watcher parks
    long before = pool.wakeUps();
    int bursts = 300;
    runQuickBursts(bursts);
    long wakeUps = pool.wakeUps() - before;
    // One per burst, and a few helpers after a job's thread was descheduled (its time raises
    // the average). A helper for each job taken while more wait makes over 2 per burst.
    assertThat(wakeUps).as("wake-ups over " + bursts + " bursts of 16")
        .isLessThan(bursts * 3 / 2);
    // Idle, no thread keeps looking: all end up parked without a timeout.
    long deadline = System.nanoTime() + SECONDS_10;
    while (made.stream().anyMatch(thread -> thread.getState() != Thread.State.WAITING)) {
      assertThat(System.nanoTime()).as("every thread parked untimed in time").isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  /**
   * A job far slower than the quick ones before it gets no helper woken for the jobs behind it
   * (the average says they will soon be reached); the watcher takes them within its look. (If
   * the average is up, a descheduled job having raised it, a helper takes them instead.)
   */
  @Test
  void aJobFarSlowerThanTheAverageDoesNotHoldUpTheJobsQueuedBehindIt() throws Exception {
    pool = new HandlerPool(16, factory);
    runQuickBursts(100);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch blockerRunning = new CountDownLatch(1);
    CountDownLatch behind = new CountDownLatch(4);
    List<Runnable> burst = new ArrayList<>();
    burst.add(() -> {
      blockerRunning.countDown();
      awaitQuietly(release);
    });
    for (int i = 0; i < 4; i++) {
      burst.add(behind::countDown);
    }
    pool.executeAll(burst);
    try {
      assertThat(blockerRunning.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(behind.await(10, TimeUnit.SECONDS)).as("the jobs behind the slow one ran")
          .isTrue();
    } finally {
      release.countDown();
    }
  }

  @Test
  void aQuickJobRunsOnItsCallerWhileAThreadWatches() throws Exception {
    pool = new HandlerPool(4, factory);
    pool.allowCallerRuns(stillStalled -> { });
    List<Thread> ranOn = new CopyOnWriteArrayList<>();
    long wakeUps = runOnCaller(() -> ranOn.add(Thread.currentThread()));
    assertThat(ranOn).containsExactly(Thread.currentThread());
    assertThat(pool.wakeUps()).isEqualTo(wakeUps);
  }

  @Test
  void noJobRunsOnItsCallerUnlessAllowedNorInAPoolOfOne() throws Exception {
    pool = new HandlerPool(4, factory);
    for (int i = 0; i < 20; i++) {
      runQuickBursts(1);
      assertThat(pool.runHereIfQuick(() -> { })).isFalse();
    }
    pool.shutdownNow();
    pool = new HandlerPool(1, factory);
    pool.allowCallerRuns(stillStalled -> { });
    for (int i = 0; i < 20; i++) {
      runQuickBursts(1);
      assertThat(pool.runHereIfQuick(() -> { })).isFalse();
    }
  }

  @Test
  void aStalledJobOnItsCallerIsReportedOnceAndJobsHandedInMeanwhileRun() throws Exception {
    pool = new HandlerPool(4, factory);
    AtomicInteger reports = new AtomicInteger();
    CountDownLatch reported = new CountDownLatch(1);
    List<java.util.function.BooleanSupplier> checks = new CopyOnWriteArrayList<>();
    pool.allowCallerRuns(stillStalled -> {
      checks.add(stillStalled);
      reports.incrementAndGet();
      reported.countDown();
    });
    CountDownLatch release = new CountDownLatch(1);
    Thread caller = onCaller(() -> awaitQuietly(release));
    assertThat(reported.await(10, TimeUnit.SECONDS)).isTrue();
    CountDownLatch othersRan = new CountDownLatch(3);
    pool.executeAll(List.of(othersRan::countDown, othersRan::countDown, othersRan::countDown));
    assertThat(othersRan.await(10, TimeUnit.SECONDS)).isTrue();
    Thread.sleep(20); // ten watches: the stall is told once
    assertThat(reports.get()).isEqualTo(1);
    assertThat(checks.get(0).getAsBoolean()).as("the stalled job still runs").isTrue();
    release.countDown();
    caller.join(10_000);
    assertThat(caller.isAlive()).isFalse();
    assertThat(checks.get(0).getAsBoolean()).as("the stalled job still runs").isFalse();
  }

  @Test
  void aJobHandedInBesideOneOnItsCallerWakesAThread() throws Exception {
    pool = new HandlerPool(4, factory);
    pool.allowCallerRuns(stillStalled -> { });
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread caller = onCaller(() -> {
      running.countDown();
      awaitQuietly(release);
    });
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    // The caller takes no queued job: one handed in now needs a thread of its own at once, not
    // at the watcher's next look.
    long wakeUps = pool.wakeUps();
    CountDownLatch ran = new CountDownLatch(1);
    pool.execute(ran::countDown);
    assertThat(pool.wakeUps()).isEqualTo(wakeUps + 1);
    assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    release.countDown();
    caller.join(10_000);
  }

  @Test
  void aJobOnItsCallerCountsAgainstThePoolsSize() throws Exception {
    pool = new HandlerPool(2, factory);
    CountDownLatch reported = new CountDownLatch(1);
    pool.allowCallerRuns(stillStalled -> reported.countDown());
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    Runnable blocking = () -> {
      mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
      awaitQuietly(release);
      running.decrementAndGet();
    };
    Thread caller = onCaller(blocking);
    assertThat(reported.await(10, TimeUnit.SECONDS)).isTrue();
    CountDownLatch done = new CountDownLatch(3);
    List<Runnable> more = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      more.add(() -> {
        blocking.run();
        done.countDown();
      });
    }
    pool.executeAll(more);
    Await.until(() -> running.get() == 2, "a thread to run beside the caller");
    Thread.sleep(20); // ten watches: time enough for a third to start, were it let
    assertThat(mostAtOnce.get()).isEqualTo(2);
    release.countDown();
    assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    caller.join(10_000);
    assertThat(mostAtOnce.get()).isEqualTo(2);
  }

  @Test
  void terminationWaitsForAJobOnItsCaller() throws Exception {
    pool = new HandlerPool(4, factory);
    CountDownLatch reported = new CountDownLatch(1);
    pool.allowCallerRuns(stillStalled -> reported.countDown());
    CountDownLatch release = new CountDownLatch(1);
    Thread caller = onCaller(() -> awaitQuietly(release));
    assertThat(reported.await(10, TimeUnit.SECONDS)).isTrue();
    pool.shutdown();
    assertThat(pool.awaitTermination(TimeUnit.MILLISECONDS.toNanos(50))).isFalse();
    release.countDown();
    assertThat(pool.awaitTermination(SECONDS_10)).isTrue();
    caller.join(10_000);
  }

  /**
   * Hands in bursts of quick jobs until the pool lets this thread run {@code task} itself;
   * returns the pool's wake-ups just before it did.
   */
  private long runOnCaller(Runnable task) throws InterruptedException {
    long deadline = System.nanoTime() + SECONDS_10;
    while (true) {
      runQuickBursts(1);
      long wakeUps = pool.wakeUps();
      if (pool.runHereIfQuick(task)) {
        return wakeUps;
      }
      assertThat(System.nanoTime()).as("a job let run on its caller in time").isLessThan(deadline);
    }
  }

  /** A thread that runs {@code task} as the pool's caller, started. */
  private Thread onCaller(Runnable task) {
    Thread caller = new Thread(() -> {
      try {
        runOnCaller(task);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "pool-test-caller");
    caller.setDaemon(true);
    caller.start();
    return caller;
  }

  private void runQuickBursts(int bursts) throws InterruptedException {
    for (int b = 0; b < bursts; b++) {
      CountDownLatch done = new CountDownLatch(16);
      List<Runnable> burst = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        burst.add(done::countDown);
      }
      pool.executeAll(burst);
      assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static void awaitParked(Thread thread) throws InterruptedException {
    long deadline = System.nanoTime() + SECONDS_10;
    while (thread.getState() != Thread.State.WAITING) {
      assertThat(System.nanoTime()).as("thread parked in time").isLessThan(deadline);
      Thread.sleep(1);
    }
  }
}

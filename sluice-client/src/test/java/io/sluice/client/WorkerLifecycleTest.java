package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import io.sluice.client.model.Range;
import io.sluice.client.model.Retention;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Shutdown that loses no job, and reconnection after the server restarts. */
class WorkerLifecycleTest {
  @TempDir Path dir;

  private static List<String> enqueueKept(SluiceClient client, String queue, int count) {
    // Completed jobs are kept for an hour so the test can tell completed from lost.
    return client.jobs().enqueueAll(IntStream.range(0, count)
            .mapToObj(i -> EnqueueRequest.builder(queue, "work", Map.of("i", i))
                .retention(new Retention(Duration.ofHours(1), null)).build())
            .toList())
        .stream().map(Job::id).toList();
  }

  private static Map<JobStatus, Set<String>> statuses(SluiceClient client, String queue) {
    return client.jobs().stream(JobQuery.all().queues(queue).limit(500)).collect(
        Collectors.groupingBy(Job::status, Collectors.mapping(Job::id, Collectors.toSet())));
  }

  @Test
  void gracefulShutdownFinishesRunningJobsAndLosesNone() {
    shutDownMidwayLosingNone(300, 50, 2);
  }

  @Test
  void gracefulShutdownAmongQuickJobsRunOnTheTakeThreadLosesNone() {
    // Jobs this quick are mostly run by the take thread itself (before Java 21).
    shutDownMidwayLosingNone(3_000, 1_000, 0);
  }

  /** Shuts a worker down once {@code handledFirst} of {@code count} jobs are handled. */
  private void shutDownMidwayLosingNone(int count, int handledFirst, long millisPerJob) {
    try (TestServer server = TestServer.start(dir)) {
      SluiceClient client = server.client();
      String queue = TestServer.uniqueName("graceful");
      List<String> ids = enqueueKept(client, queue, count);
      Set<String> handled = ConcurrentHashMap.newKeySet();
      Worker worker = Worker.builder(client).queues(queue).concurrency(4).prefetch(16).build();
      worker.handle("work", Map.class, (payload, job) -> {
        if (millisPerJob > 0) {
          Thread.sleep(millisPerJob);
        }
        handled.add(job.id());
      });
      worker.start();
      Await.until(() -> handled.size() >= handledFirst, handledFirst + " jobs to be handled");

      long shutdownStart = System.nanoTime();
      assertThat(worker.shutdown(Duration.ofSeconds(20))).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - shutdownStart))
          .as("shutdown returns once its work is done, not at the deadline")
          .isLessThan(Duration.ofSeconds(10));

      // The server requeues what the closed stream held once it has seen the connection close.
      Map<JobStatus, Set<String>> byStatus = Await.until(() -> statuses(client, queue),
          seen -> !seen.containsKey(JobStatus.IN_FLIGHT), "the closed stream's jobs to be requeued");
      assertThat(byStatus.keySet()).containsOnly(JobStatus.COMPLETED, JobStatus.READY);
      assertThat(byStatus.get(JobStatus.COMPLETED)).isEqualTo(handled);
      assertThat(byStatus.get(JobStatus.READY)).hasSize(ids.size() - handled.size());
      assertThat(handled.size()).isLessThan(ids.size());
    }
  }

  @Test
  void oneThreadKeepsTheJvmAliveFromStartToShutdown() throws InterruptedException {
    try (TestServer server = TestServer.start(dir)) {
      Set<Thread> before = nonDaemonThreads();
      Worker worker = Worker.builder(server.client()).queues(TestServer.uniqueName("alive")).build();
      assertThat(nonDaemonThreads()).as("before start").isEqualTo(before);
      worker.start();
      Set<Thread> keepers = nonDaemonThreads();
      keepers.removeAll(before);
      // The take thread may run handlers, which at the shutdown deadline are abandoned: as the
      // handler threads, it must not keep the JVM alive then.
      assertThat(keepers).hasSize(1).allMatch(thread -> thread.getName().endsWith("-alive"));
      worker.shutdown(Duration.ofSeconds(5));
      Thread keeper = keepers.iterator().next();
      keeper.join(5_000);
      assertThat(keeper.isAlive()).as("the keeper after shutdown").isFalse();
    }
  }

  private static Set<Thread> nonDaemonThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(thread -> thread.isAlive() && !thread.isDaemon())
        .collect(Collectors.toCollection(java.util.HashSet::new));
  }

  @Test
  void handlersStillRunningAtTheDeadlineAreRequeued() {
    try (TestServer server = TestServer.start(dir)) {
      SluiceClient client = server.client();
      String queue = TestServer.uniqueName("deadline");
      List<String> ids = enqueueKept(client, queue, 3);
      CountDownLatch started = new CountDownLatch(3);
      Worker worker = Worker.builder(client).queues(queue).concurrency(3).build();
      worker.handle("work", Map.class, (payload, job) -> {
        started.countDown();
        new CountDownLatch(1).await(); // never finishes on its own
      });
      worker.start();
      Await.until(() -> started.getCount() == 0, "all handlers to start");

      assertThat(worker.shutdown(Duration.ofMillis(200))).isFalse();

      Map<JobStatus, Set<String>> byStatus = Await.until(() -> statuses(client, queue),
          seen -> !seen.containsKey(JobStatus.IN_FLIGHT), "the closed stream's jobs to be requeued");
      assertThat(byStatus).containsOnlyKeys(JobStatus.READY);
      assertThat(byStatus.get(JobStatus.READY)).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(client.jobs().count(JobQuery.all().queues(queue).attempts(
          Range.exactly(0)))).as("no failure was recorded").isEqualTo(3);
    }
  }

  @Test
  void reconnectsAfterTheServerRestartsOnTheSamePort() {
    try (TestServer server = TestServer.start(dir)) {
      SluiceClient client = server.client();
      String queue = TestServer.uniqueName("restart");
      Set<String> handled = ConcurrentHashMap.newKeySet();
      try (Worker worker = Worker.builder(client).queues(queue).concurrency(2)
          .reconnectDelay(Duration.ofMillis(20), Duration.ofMillis(200))
          .idleTimeout(Duration.ofSeconds(2)).build()) {
        worker.handle("work", Map.class, (payload, job) -> handled.add(job.id()));
        worker.start();
        String before = enqueueKept(client, queue, 1).get(0);
        Await.until(() -> handled.contains(before), "the first job to run");
        Await.until(() -> client.jobs().get(before).status() == JobStatus.COMPLETED,
            "the first job's ack");

        server.stop();
        server.startAgain();
        String after = enqueueKept(client, queue, 1).get(0);

        Await.until(() -> client.jobs().get(after).status() == JobStatus.COMPLETED,
            "the job enqueued after the restart to complete");
        assertThat(handled).contains(before, after);
        assertThat(client.jobs().get(before).status()).isEqualTo(JobStatus.COMPLETED);
      }
    }
  }
}

package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.ErrorRecord;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/** Handler routing, payload mapping, outcomes and the prefetch bound. */
class WorkerTest extends SharedServerTest {
  record Email(String to, String subject) {}

  static Worker.Builder worker(String queue) {
    return Worker.builder(client).queues(queue).concurrency(4)
        .reconnectDelay(Duration.ofMillis(20), Duration.ofMillis(200))
        .shutdownTimeout(Duration.ofSeconds(5));
  }

  static String enqueue(String queue, String type, Object payload) {
    return client.jobs().enqueue(EnqueueRequest.builder(queue, type, payload).build()).id();
  }

  static Job awaitStatus(String id, JobStatus status) {
    return Await.until(() -> client.jobs().get(id), job -> job.status() == status,
        "job " + id + " to be " + status);
  }

  static void awaitQueueEmpty(String queue) {
    Await.until(() -> client.jobs().count(JobQuery.all().queues(queue)), n -> n == 0,
        "queue " + queue + " to drain");
  }

  static List<EnqueueRequest> jobs(String queue, String type, int count) {
    List<EnqueueRequest> jobs = new ArrayList<>();
    IntStream.range(0, count)
        .forEach(i -> jobs.add(EnqueueRequest.builder(queue, type, Map.of()).build()));
    return jobs;
  }

  static ErrorRecord onlyError(String id) {
    List<ErrorRecord> errors = client.jobs().streamErrors(id).toList();
    assertThat(errors).hasSize(1);
    return errors.get(0);
  }

  @Test
  void routesByTypeAndMapsPayloadsToRecords() {
    String queue = TestServer.uniqueName("routing");
    Map<String, Email> emails = new ConcurrentHashMap<>();
    Set<String> reports = ConcurrentHashMap.newKeySet();
    try (Worker worker = worker(queue).build()) {
      worker.handle("send_email", Email.class, (email, job) -> emails.put(job.id(), email))
          .handle("report", Map.class, (payload, job) -> reports.add(job.id()));
      worker.start();
      String first = enqueue(queue, "send_email", new Email("ada@example.com", "hi"));
      String second = enqueue(queue, "report", Map.of("k", "v"));

      awaitQueueEmpty(queue);

      assertThat(emails).containsEntry(first, new Email("ada@example.com", "hi"));
      assertThat(reports).containsExactly(second);
    }
  }

  @Test
  void aMessagePackWorkerTakesAndAcksEveryJob() {
    String queue = TestServer.uniqueName("msgpack-worker");
    SluiceClient msgpack = SluiceClient.builder(server.url()).format(WireFormat.MSGPACK).build();
    List<EnqueueRequest> requests = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      requests.add(EnqueueRequest.builder(queue, "send_email",
          new Email("user" + i + "@example.com", "n" + i)).build());
    }
    Set<String> ids = new HashSet<>();
    msgpack.jobs().enqueueAll(requests).forEach(job -> ids.add(job.id()));
    Map<String, Email> received = new ConcurrentHashMap<>();
    try (Worker worker = Worker.builder(msgpack).queues(queue).concurrency(2).prefetch(8).build()) {
      worker.handle("send_email", Email.class, (email, job) -> received.put(job.id(), email));
      worker.start();
      awaitQueueEmpty(queue); // acked: completed jobs leave at once under the default retention
    }
    assertThat(received.keySet()).isEqualTo(ids);
    assertThat(received.values()).contains(new Email("user7@example.com", "n7"));
  }

  record Cents(long value) {}

  @Test
  void payloadModulesRegisteredAfterHandleStillApply() {
    String queue = TestServer.uniqueName("late-module");
    SluiceClient own = server.client();
    Map<String, Cents> seen = new ConcurrentHashMap<>();
    try (Worker worker = Worker.builder(own).queues(queue).concurrency(1).build()) {
      worker.handle("charge", Cents.class, (cents, job) -> seen.put(job.id(), cents));
      own.payloadMapper().registerModule(new com.fasterxml.jackson.databind.module.SimpleModule()
          .addDeserializer(Cents.class, new com.fasterxml.jackson.databind.JsonDeserializer<>() {
            @Override
            public Cents deserialize(com.fasterxml.jackson.core.JsonParser p,
                com.fasterxml.jackson.databind.DeserializationContext ctxt)
                throws java.io.IOException {
              return new Cents(Math.round(p.getDoubleValue() * 100)); // "12.34" euros
            }
          }));
      worker.start();
      String id = enqueue(queue, "charge", 12.34);
      awaitQueueEmpty(queue);
      assertThat(seen).containsEntry(id, new Cents(1234));
    }
  }

  @Test
  void unknownTypesFailWithAClearMessageByDefault() {
    String queue = TestServer.uniqueName("unknown");
    try (Worker worker = worker(queue).build()) {
      worker.start();
      String id = client.jobs().enqueue(EnqueueRequest.builder(queue, "mystery", null)
          .retryLimit(0).build()).id();

      awaitStatus(id, JobStatus.DEAD);

      assertThat(onlyError(id).message()).contains("no handler for job type 'mystery'");
    }
  }

  @Test
  void fallbackHandlesUnknownTypes() {
    String queue = TestServer.uniqueName("fallback");
    Set<String> seen = ConcurrentHashMap.newKeySet();
    try (Worker worker = worker(queue).build()) {
      worker.fallback((payload, job) -> seen.add(job.type() + ":" + payload.get("x").asInt()));
      worker.start();
      enqueue(queue, "anything", Map.of("x", 5));

      awaitQueueEmpty(queue);

      assertThat(seen).containsExactly("anything:5");
    }
  }

  @Test
  void handlerOutcomesReachTheServer() {
    String queue = TestServer.uniqueName("outcomes");
    Instant retryAt = Instant.now().plusSeconds(600);
    try (Worker worker = worker(queue).build()) {
      worker.handle("kill", Map.class, (payload, job) -> {
        throw new KillJobException("cannot ever work", new IllegalArgumentException("bad"));
      });
      worker.handle("retry", Map.class, (payload, job) -> {
        throw new RetryJobException(retryAt, "rate limited");
      });
      worker.handle("crash", Map.class, (payload, job) -> {
        throw new UnsupportedOperationException("not yet");
      });
      worker.start();
      String killed = enqueue(queue, "kill", Map.of());
      String retried = enqueue(queue, "retry", Map.of());
      String crashed = enqueue(queue, "crash", Map.of());

      awaitStatus(killed, JobStatus.DEAD);
      Job retriedJob = awaitStatus(retried, JobStatus.SCHEDULED);
      Job crashedJob = awaitStatus(crashed, JobStatus.SCHEDULED);

      assertThat(onlyError(killed).message()).isEqualTo("cannot ever work");
      assertThat(onlyError(killed).errorType()).isEqualTo("java.lang.IllegalArgumentException");
      assertThat(retriedJob.readyAt()).isEqualTo(Instant.ofEpochMilli(retryAt.toEpochMilli()));
      assertThat(onlyError(retried).message()).isEqualTo("rate limited");
      assertThat(crashedJob.attempts()).isEqualTo(1);
      ErrorRecord crash = onlyError(crashed);
      assertThat(crash.errorType()).isEqualTo("java.lang.UnsupportedOperationException");
      assertThat(crash.message()).isEqualTo("not yet");
      assertThat(crash.backtrace()).contains("WorkerTest");
    }
  }

  @Test
  void unmappablePayloadFailsTheJob() {
    String queue = TestServer.uniqueName("unmappable");
    try (Worker worker = worker(queue).build()) {
      worker.handle("send_email", Email.class, (email, job) -> { });
      worker.start();
      String id = enqueue(queue, "send_email", List.of(1, 2));

      awaitStatus(id, JobStatus.SCHEDULED);

      assertThat(onlyError(id).errorType()).contains("jackson");
    }
  }

  @Test
  void prefetchBoundsTheJobsAWorkerHolds() throws InterruptedException {
    String queue = TestServer.uniqueName("prefetch");
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger started = new AtomicInteger();
    IntStream.range(0, 10).forEach(i -> enqueue(queue, "slow", Map.of()));
    try (Worker worker = worker(queue).concurrency(8).prefetch(3).build()) {
      worker.handle("slow", Map.class, (payload, job) -> {
        started.incrementAndGet();
        release.await(10, TimeUnit.SECONDS);
      });
      worker.start();

      Await.until(() -> started.get() == 3, "3 handlers to start");
      JobQuery inFlight = JobQuery.all().queues(queue).statuses(JobStatus.IN_FLIGHT);
      // The other 7 stay on the server: neither the server nor the worker exceeds the bound.
      Await.until(() -> client.jobs().count(JobQuery.all().queues(queue)
          .statuses(JobStatus.READY)) == 7 && worker.heldJobs() == 3, "the rest to stay ready");
      assertThat(client.jobs().count(inFlight)).isEqualTo(3);
      assertThat(started.get()).isEqualTo(3);

      release.countDown();
      awaitQueueEmpty(queue);
      assertThat(started.get()).isEqualTo(10);
      Await.until(() -> worker.heldJobs() == 0, "every permit to be returned");
    }
  }

  @Test
  @EnabledForJreRange(max = JRE.JAVA_20) // jobs run on the take thread only before Java 21
  void aSlowJobRunOnTheTakeThreadHoldsUpNoJobAfterIt() {
    String queue = TestServer.uniqueName("relief");
    HeldOnTakeThread slow = new HeldOnTakeThread();
    AtomicInteger after = new AtomicInteger();
    int rounds = 0;
    try (Worker worker = worker(queue).concurrency(4).prefetch(8).build()) {
      worker.handle("quick", Map.class, (payload, job) -> { });
      worker.handle("after", Map.class, (payload, job) -> after.incrementAndGet());
      worker.handle("slow", Map.class, slow);
      worker.start();
      // A burst of quick jobs has the take thread run them itself, most likely the slow one too.
      while (slow.held.get() == 0 && rounds < 10) {
        rounds++;
        List<EnqueueRequest> burst = jobs(queue, "quick", 400);
        burst.addAll(jobs(queue, "slow", 1));
        burst.addAll(jobs(queue, "after", 20));
        client.jobs().enqueueAll(burst);
        int expected = 20 * rounds;
        Await.until(() -> after.get() == expected, "the jobs after the slow one to run");
      }
      assertThat(slow.held.get()).as("the slow job run on the take thread").isEqualTo(1);
      assertThat(slow.release.getCount()).as("the slow job still running").isEqualTo(1);
      assertThat(slow.onDaemon).as("a daemon, as handler threads are").isTrue();
      slow.release.countDown();
      awaitQueueEmpty(queue);
    }
  }

  @Test
  @EnabledForJreRange(max = JRE.JAVA_20) // jobs run on the take thread only before Java 21
  void aStreamThatEndsWhileAJobHoldsTheTakeThreadIsReopenedByItsRelief() throws Exception {
    String queue = TestServer.uniqueName("relief-reopens");
    HeldOnTakeThread slow = new HeldOnTakeThread();
    AtomicInteger later = new AtomicInteger();
    // An idle timeout below the test server's heartbeat interval (TestServer.HEARTBEAT_MS): every
    // stream left waiting, the one the relief reads included, is closed as silent.
    try (Worker worker = worker(queue).concurrency(4).prefetch(8)
        .idleTimeout(Duration.ofMillis(100)).build()) {
      worker.handle("quick", Map.class, (payload, job) -> { });
      worker.handle("later", Map.class, (payload, job) -> later.incrementAndGet());
      worker.handle("slow", Map.class, slow);
      worker.start();
      for (int round = 0; slow.held.get() == 0 && round < 10; round++) {
        List<EnqueueRequest> burst = jobs(queue, "quick", 400);
        burst.addAll(jobs(queue, "slow", 1));
        client.jobs().enqueueAll(burst);
        Await.until(() -> slow.held.get() > 0
            || client.jobs().count(JobQuery.all().queues(queue)) == 0, "the burst to run");
      }
      assertThat(slow.held.get()).as("the slow job run on the take thread").isEqualTo(1);
      // Three idle timeouts: the stream the relief read is closed by now, so a job enqueued since
      // can only come on a stream opened since.
      Thread.sleep(300);
      enqueue(queue, "later", Map.of());
      Await.until(() -> later.get() > 0, "a job enqueued later to run on a reopened stream");
      assertThat(slow.release.getCount()).as("the slow job still running").isEqualTo(1);
      slow.release.countDown();
    }
  }

  /**
   * A handler held until released, but only where it stops the stream being read: on the take
   * thread. Longer than a test waits for the jobs after it.
   */
  @SuppressWarnings("rawtypes")
  static final class HeldOnTakeThread implements JobHandler<Map> {
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger held = new AtomicInteger();
    volatile boolean onDaemon;

    @Override
    public void handle(Map payload, Job job) throws InterruptedException {
      if (Thread.currentThread().getName().endsWith("-take")) {
        onDaemon = Thread.currentThread().isDaemon();
        held.incrementAndGet();
        release.await(60, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void handlersRunOnPlatformThreadsBeforeJava21() {
    String queue = TestServer.uniqueName("threads");
    Set<Boolean> daemon = ConcurrentHashMap.newKeySet();
    Set<String> names = ConcurrentHashMap.newKeySet();
    try (Worker worker = worker(queue).build()) {
      worker.handle("t", Map.class, (payload, job) -> {
        daemon.add(Thread.currentThread().isDaemon());
        names.add(Thread.currentThread().getName());
      });
      worker.start();
      enqueue(queue, "t", Map.of());
      awaitQueueEmpty(queue);
    }
    assertThat(HandlerThreads.virtualAvailable())
        .isEqualTo(Runtime.version().feature() >= 21);
    assertThat(names).allMatch(name -> name.contains("-handler-"));
    assertThat(daemon).containsExactly(true);
  }
}

package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.client.model.EnqueueRequest;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobQuery;
import io.sluice.client.model.JobStatus;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client and its {@link Worker} against a real cluster: three {@code sluice serve}
 * processes on loopback. A client whose first seed is a follower is redirected to the leader and
 * stays there; a producer and a worker that share one client carry on, without being restarted,
 * when the leader is killed under them, and every enqueue that returned is handled.
 */
@Timeout(value = 150, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RealClusterClientTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Three JVMs starting at once on a small, busy machine. */
  private static final Duration START = Duration.ofSeconds(60);
  private static final Duration ELECTION = Duration.ofSeconds(30);
  /** From the kill until every job enqueued before or after it has been handled. */
  private static final Duration DRAIN_AFTER_KILL = Duration.ofSeconds(60);

  @TempDir Path dir;
  private ClusterNodes cluster;
  private Worker worker;
  private Producer producer;
  private long startMs;

  @BeforeEach
  void startCluster() throws Exception {
    long start = System.nanoTime();
    cluster = ClusterNodes.start(dir, 3, START);
    startMs = millisSince(start);
  }

  @AfterEach
  void stopEverything() throws InterruptedException {
    try {
      if (producer != null) {
        producer.stopAndJoin();
      }
      if (worker != null) {
        worker.shutdown(Duration.ofSeconds(5));
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  @Test
  void aClientWhoseFirstSeedIsAFollowerIsRedirectedToTheLeaderAndStaysThere() throws Exception {
    String leader = cluster.awaitLeader(ELECTION);
    List<String> followers = followersOf(leader);
    SluiceClient client = SluiceClient.builder(seeds(leader)).build();
    assertThat(client.currentUrl()).isEqualTo(cluster.url(followers.get(0)));

    Job job = client.jobs().enqueue(
        EnqueueRequest.builder("redirected", "work", Map.of("n", 1)).build());

    assertThat(client.currentUrl()).as("the client follows the leader")
        .isEqualTo(cluster.url(leader));
    // The first seed really is a follower: it sends the same request elsewhere.
    HttpResponse<String> onFollower = cluster.get(followers.get(0), "/jobs/" + job.id());
    assertThat(onFollower.statusCode()).isEqualTo(307);
    assertThat(onFollower.headers().firstValue("Location"))
        .contains(cluster.url(leader) + "/jobs/" + job.id());
    // The leader holds the job, as the client was told.
    HttpResponse<String> onLeader = cluster.get(leader, "/jobs/" + job.id());
    assertThat(onLeader.statusCode()).isEqualTo(200);
    JsonNode stored = JSON.readTree(onLeader.body());
    assertThat(stored.get("queue").asText()).isEqualTo("redirected");
    assertThat(stored.get("status").asText()).isEqualTo("ready");
    // Later calls go straight to the leader.
    assertThat(client.jobs().get(job.id()).status()).isEqualTo(JobStatus.READY);
    assertThat(client.queues()).contains("redirected");
    assertThat(client.currentUrl()).isEqualTo(cluster.url(leader));
  }

  @Test
  void aProducerAndAWorkerCarryOnWhenTheLeaderIsKilledAndLoseNothingEnqueued() throws Exception {
    long begun = System.nanoTime();
    String leader = cluster.awaitLeader(ELECTION);
    // Followers first: the worker's stream is refused by one and opened on the leader.
    SluiceClient client = SluiceClient.builder(seeds(leader))
        .requestTimeout(Duration.ofSeconds(10))
        .build();
    String queue = "failover";
    Set<String> handled = ConcurrentHashMap.newKeySet();
    AtomicInteger handledAfterKill = new AtomicInteger();
    producer = new Producer(client, queue);
    worker = Worker.builder(client).queues(queue).concurrency(2).prefetch(8)
        .shutdownTimeout(Duration.ofSeconds(5)).build();
    worker.handle("work", Map.class, (payload, job) -> {
      handled.add(job.id());
      if (producer.killed) {
        handledAfterKill.incrementAndGet();
      }
    });
    worker.start();
    producer.start();

    await(() -> handled.size() >= 50, Duration.ofSeconds(30),
        () -> "50 jobs handled before the kill; handled " + handled.size() + ", " + producer);
    int enqueuedBeforeKill = producer.enqueued.size();
    long killedAt = System.nanoTime();
    long beforeKillMs = (killedAt - begun) / 1_000_000;
    producer.killed = true;
    cluster.kill(leader);
    String newLeader = cluster.awaitLeader(ELECTION);
    long electedMs = millisSince(killedAt);
    assertThat(newLeader).isNotEqualTo(leader);

    // The producer carries on through the same client against the new leader.
    await(() -> producer.enqueuedAfterKill.size() >= 50, Duration.ofSeconds(30),
        () -> "50 enqueues started after the kill to return; " + producer);
    producer.stopAndJoin();
    long producerDoneMs = millisSince(killedAt);

    long deadline = killedAt + DRAIN_AFTER_KILL.toNanos();
    awaitUntil(() -> handled.containsAll(producer.enqueued), deadline,
        () -> "every returned enqueue handled; missing "
            + missing(producer.enqueued, handled).size() + " of " + producer.enqueued.size());
    long handledAllMs = millisSince(killedAt);
    JobQuery unfinished = JobQuery.all().queues(queue)
        .statuses(JobStatus.SCHEDULED, JobStatus.READY, JobStatus.IN_FLIGHT);
    awaitUntil(() -> client.jobs().count(unfinished) == 0, deadline,
        () -> "every job of the queue acknowledged on the new leader");
    long completedMs = millisSince(killedAt);

    Map<JobStatus, Set<String>> byStatus = client.jobs()
        .stream(JobQuery.all().queues(queue).limit(500))
        .collect(Collectors.groupingBy(Job::status,
            Collectors.mapping(Job::id, Collectors.toSet())));
    Set<String> completed = byStatus.getOrDefault(JobStatus.COMPLETED, Set.of());
    assertThat(missing(producer.enqueued, completed)).as("returned enqueues not completed")
        .isEmpty();
    assertThat(byStatus.keySet()).as("statuses in the queue").containsOnly(JobStatus.COMPLETED);
    assertThat(client.currentUrl()).as("the client follows the new leader")
        .isEqualTo(cluster.url(newLeader));
    assertThat(producer.enqueued.size()).isGreaterThan(enqueuedBeforeKill);
    assertThat(producer.enqueuedAfterKill).as("jobs enqueued on the new leader were handled")
        .isNotEmpty().isSubsetOf(handled);
    assertThat(handledAfterKill.get()).as("jobs handled after the kill").isPositive();
    // The election, and followers that still name the dead leader until they notice, are waited
    // out within the unavailable timeout: only calls the kill cut off may fail (no answer), not
    // calls that gave up on the redirects or on the leader the followers named.
    assertThat(producer.failureKinds.keySet()).as("producer failures")
        .allMatch(kind -> kind.startsWith(ConnectionException.class.getSimpleName() + ":"))
        .noneMatch(kind -> kind.contains("refuses connections"));
    // A JSON read straight from the new leader agrees with what the client saw.
    String anyAfterKill = producer.enqueuedAfterKill.iterator().next();
    HttpResponse<String> direct = cluster.get(newLeader, "/jobs/" + anyAfterKill);
    assertThat(direct.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(direct.body()).get("status").asText()).isEqualTo("completed");

    System.out.printf("cluster up in %d ms; leader %s killed %d ms after the test began, %s leads"
            + " %d ms later; producer: %d enqueued (%d before the kill, %d started after it),"
            + " %d calls threw %s; worker: %d jobs handled, %d after the kill; all handled %d ms"
            + " and completed %d ms after the kill (producer stopped at %d ms)%n",
        startMs, leader, beforeKillMs, newLeader, electedMs, producer.enqueued.size(),
        enqueuedBeforeKill, producer.enqueuedAfterKill.size(), producer.failures.get(),
        producer.failureKinds, handled.size(), handledAfterKill.get(), handledAllMs, completedMs,
        producerDoneMs);
  }

  /** The node URLs, followers first and the leader last. */
  private List<String> seeds(String leader) {
    List<String> seeds = new ArrayList<>(followersOf(leader).stream().map(cluster::url).toList());
    seeds.add(cluster.url(leader));
    return seeds;
  }

  private List<String> followersOf(String leader) {
    return cluster.ids().stream().filter(id -> !id.equals(leader)).toList();
  }

  private static Set<String> missing(Set<String> expected, Set<String> seen) {
    return expected.stream().filter(id -> !seen.contains(id)).collect(Collectors.toSet());
  }

  private static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000;
  }

  private static void await(BooleanSupplier condition, Duration timeout,
      Supplier<String> what) throws InterruptedException {
    awaitUntil(condition, System.nanoTime() + timeout.toNanos(), what);
  }

  private static void awaitUntil(BooleanSupplier condition, long deadlineNanos,
      Supplier<String> what) throws InterruptedException {
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadlineNanos) {
        throw new AssertionError("timed out waiting for " + what.get());
      }
      Thread.sleep(50);
    }
  }

  /**
   * Enqueues one job at a time through the shared client until stopped. A call that throws is
   * counted, not retried, and its job is not taken as enqueued (it may or may not exist).
   */
  private static final class Producer {
    final Set<String> enqueued = ConcurrentHashMap.newKeySet();
    /** Enqueues whose call started after the leader was killed. */
    final Set<String> enqueuedAfterKill = ConcurrentHashMap.newKeySet();
    final AtomicInteger failures = new AtomicInteger();
    final Map<String, Integer> failureKinds = new TreeMap<>();
    volatile boolean killed;
    private volatile boolean stop;
    private final Thread thread;

    Producer(SluiceClient client, String queue) {
      thread = new Thread(() -> {
        for (int n = 0; !stop; n++) {
          boolean afterKill = killed;
          try {
            Job job = client.jobs().enqueue(
                EnqueueRequest.builder(queue, "work", Map.of("n", n)).build());
            enqueued.add(job.id());
            if (afterKill) {
              enqueuedAfterKill.add(job.id());
            }
            pause(5);
          } catch (SluiceException e) {
            failures.incrementAndGet();
            String kind = e.getClass().getSimpleName() + ": " + e.getMessage();
            synchronized (failureKinds) {
              failureKinds.merge(kind.length() > 160 ? kind.substring(0, 160) : kind, 1,
                  Integer::sum);
            }
            pause(50);
          }
        }
      }, "producer");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void stopAndJoin() throws InterruptedException {
      stop = true;
      thread.join(30_000);
    }

    private static void pause(long millis) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public String toString() {
      synchronized (failureKinds) {
        return enqueued.size() + " enqueued (" + enqueuedAfterKill.size()
            + " after the kill), " + failures.get() + " threw " + failureKinds;
      }
    }
  }
}

package io.sluice.cli.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.CliRunner;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice backup} of a server process while producers enqueue and a worker takes and
 * acknowledges, then {@code sluice restore} into a new root and a server on it (CLI.md §10.1,
 * §10.2): the backup holds everything acknowledged before it began, and the restored store is
 * consistent (its counts agree with a full listing).
 */
class BackupUnderLoadTest {
  private static final String QUEUE = "load";
  private static final int PRODUCERS = 2;
  private static final int JOBS_PER_REQUEST = 20;
  private static final List<String> STATUSES =
      List.of("scheduled", "ready", "in_flight", "completed", "dead");
  /** Completed jobs are kept, so that every acknowledged enqueue stays visible. */
  private static final List<String> KEEP_COMPLETED =
      List.of("--default-completed-job-retention", "1d");

  @TempDir Path tmp;

  @RegisterExtension final CrashServers servers = new CrashServers();

  /** Ids with the System.nanoTime at which their 201 or 204 reached the client. */
  private final Map<String, Long> enqueuedAt = new ConcurrentHashMap<>();
  private final Map<String, Long> completedAt = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean stop = new AtomicBoolean();

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aBackupUnderLoadRestoresEverythingAcknowledgedBeforeIt() throws Exception {
    SluiceProcess server = servers.start(tmp.resolve("root"), tmp, KEEP_COMPLETED, Map.of());
    JobCalls.enqueue(server, 2_000, 500, n -> JobCalls.job(QUEUE, "{\"seed\":" + n + "}"))
        .forEach(id -> enqueuedAt.put(id, System.nanoTime()));
    TakeReader stream = servers.take(server, "queue=" + QUEUE + "&prefetch=50");
    assertThat(stream.status(Duration.ofSeconds(10))).isEqualTo(200);

    ExecutorService load = Executors.newFixedThreadPool(PRODUCERS + 1);
    List<Future<?>> running = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      int producer = p;
      running.add(load.submit(() -> produce(server, producer)));
    }
    running.add(load.submit(() -> work(server, stream)));
    Path archive = tmp.resolve("backup.tar.gz");
    CliRunner.Result backup;
    long backupStartedNanos;
    try {
      // Bounded waits rather than fixed sleeps: a loaded machine may be slow to start either side.
      awaitAtLeast(completedAt, 1);
      int enqueuedBeforeBackup = enqueuedAt.size();
      backupStartedNanos = System.nanoTime();
      backup = CliRunner.sluice("backup", "--url", server.adminUrl(), archive.toString());
      awaitAtLeast(enqueuedAt, enqueuedBeforeBackup + 1);
    } finally {
      stop.set(true);
      for (Future<?> task : running) {
        task.get(30, TimeUnit.SECONDS);
      }
      load.shutdown();
    }
    assertThat(backup.exitCode()).as(backup.toString()).isZero();
    assertThat(failures).as("failed requests during the load").isEmpty();
    Set<String> enqueuedBefore = acknowledgedBefore(enqueuedAt, backupStartedNanos);
    Set<String> completedBefore = acknowledgedBefore(completedAt, backupStartedNanos);
    long enqueuedDuring = enqueuedAt.size() - enqueuedBefore.size();
    System.out.printf("backup under load: %d enqueues and %d acks acknowledged before it, "
        + "%d enqueues after it began%n", enqueuedBefore.size(), completedBefore.size(),
        enqueuedDuring);
    assertThat(enqueuedDuring).as("enqueues acknowledged while the backup ran").isPositive();
    assertThat(completedBefore).as("the worker acknowledged jobs before the backup").isNotEmpty();

    Path restoredRoot = tmp.resolve("restored");
    CliRunner.Result restore = CliRunner.sluice("restore", "--root-dir", restoredRoot.toString(),
        archive.toString());
    assertThat(restore.exitCode()).as(restore.toString()).isZero();
    SluiceProcess restored = servers.start(restoredRoot, tmp, KEEP_COMPLETED, Map.of());

    Map<String, String> stored = JobCalls.statusById(restored);
    assertThat(stored.keySet()).as("every enqueue acknowledged before the backup")
        .containsAll(enqueuedBefore);
    for (String id : completedBefore) {
      assertThat(stored.get(id)).as("job %s, acknowledged before the backup", id)
          .isEqualTo("completed");
    }
    assertThat(enqueuedAt.keySet()).as("the backup holds only jobs that were enqueued")
        .containsAll(stored.keySet());
    Map<String, Long> scanned = new HashMap<>();
    stored.values().forEach(status -> scanned.merge(status, 1L, Long::sum));
    for (String status : STATUSES) {
      assertThat(JobCalls.count(restored, "status=" + status)).as("count of %s", status)
          .isEqualTo(scanned.getOrDefault(status, 0L));
    }
    assertThat(scanned).as("in-flight jobs come back ready").doesNotContainKey("in_flight");
    assertThat(JobCalls.count(restored, "")).isEqualTo(stored.size());
  }

  private void awaitAtLeast(Map<String, Long> acknowledged, int count)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (acknowledged.size() < count && failures.isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("fewer than " + count + " acknowledgements within 30 s");
      }
      Thread.sleep(20);
    }
  }

  private static Set<String> acknowledgedBefore(Map<String, Long> ackedAt, long nanos) {
    Set<String> ids = ConcurrentHashMap.newKeySet();
    ackedAt.forEach((id, at) -> {
      if (at - nanos < 0) {
        ids.add(id);
      }
    });
    return ids;
  }

  private void produce(SluiceProcess server, int producer) {
    for (int round = 0; !stop.get(); round++) {
      StringBuilder body = new StringBuilder("{\"jobs\":[");
      for (int i = 0; i < JOBS_PER_REQUEST; i++) {
        body.append(i == 0 ? "" : ",").append(JobCalls.job(QUEUE,
            "{\"producer\":" + producer + ",\"round\":" + round + ",\"i\":" + i + "}"));
      }
      try {
        List<String> ids = JobCalls.enqueueBulk(server, body.append("]}").toString());
        long at = System.nanoTime();
        ids.forEach(id -> enqueuedAt.put(id, at));
      } catch (Throwable e) {
        failures.add("enqueue: " + e);
        return;
      }
    }
  }

  private void work(SluiceProcess server, TakeReader stream) {
    try {
      while (!stop.get()) {
        JsonNode job = stream.poll(Duration.ofMillis(100));
        if (job == null) {
          continue;
        }
        String id = job.get("id").textValue();
        HttpResponse<String> response = server.post("/jobs/" + id + "/success", "");
        if (response.statusCode() != 204) {
          failures.add("ack " + id + ": " + response.statusCode() + " " + response.body());
          return;
        }
        completedAt.put(id, System.nanoTime());
      }
    } catch (Throwable e) {
      failures.add("worker: " + e);
    }
  }
}

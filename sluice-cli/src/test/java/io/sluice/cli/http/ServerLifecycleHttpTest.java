package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stopping and restarting the in-process server over the same data directory (API.md §4.1, §8.4
 * graceful shutdown): open streams end, held jobs come back ready, stored state survives, and no
 * {@code sluice-*} thread outlives the server. Each test has its own server.
 */
class ServerLifecycleHttpTest {
  @TempDir Path tempDir;
  ServerFixture server;

  @BeforeEach
  void startServer() {
    server = ServerFixture.start(tempDir);
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  @Test
  void shutdownEndsTakeStreamsAndRequeuesTheirJobs() {
    String queue = "lifecycle";
    String jobId = server.enqueueId(queue);
    try (WorkerStream stream = server.take("queue=" + queue)) {
      assertThat(id(stream.nextJob())).isEqualTo(jobId);

      server.restart();

      assertThat(stream.awaitEnd(ServerFixture.TIMEOUT)).as("stream ended by shutdown").isTrue();
      JsonNode recovered = server.getJob(jobId);
      assertThat(recovered.get("status").textValue()).isEqualTo("ready");
      assertThat(recovered.get("attempts").intValue()).isZero();
    }
    try (WorkerStream stream = server.take("queue=" + queue)) {
      assertThat(id(stream.nextJob())).isEqualTo(jobId);
      server.ack(jobId);
    }
  }

  @Test
  void gracefulShutdownRequeueKeepsDequeuedAt() {
    String queue = "lifecycle-dequeued";
    String jobId = server.enqueueId(queue);
    long dequeuedAtMs;
    try (WorkerStream stream = server.take("queue=" + queue)) {
      dequeuedAtMs = stream.nextJob().get("dequeued_at").longValue();
      server.restart();
      assertThat(stream.awaitEnd(ServerFixture.TIMEOUT)).isTrue();
    }

    JsonNode recovered = server.getJob(jobId);

    assertThat(recovered.get("status").textValue()).isEqualTo("ready");
    assertThat(recovered.has("dequeued_at")).as("dequeued_at in %s", recovered).isTrue();
    assertThat(recovered.get("dequeued_at").longValue()).isEqualTo(dequeuedAtMs);
  }

  @Test
  void storedJobsAndErrorsSurviveARestart() {
    String queue = "durable";
    long readyAtMs = System.currentTimeMillis() + 3_600_000;
    ObjectNode later = job(queue, "later").put("ready_at", readyAtMs).put("priority", 3);
    String scheduledId = id(server.enqueue(later));
    ObjectNode failing = job(queue, "failing");
    failing.putObject("payload").put("k", "v");
    String failedId = id(server.enqueue(failing));
    try (WorkerStream stream = server.take("queue=" + queue)) {
      assertThat(id(stream.nextJob())).isEqualTo(failedId);
      server.fail(failedId, JSON.createObjectNode().put("message", "before restart")
          .put("retry_at", readyAtMs));
    }

    server.restart();

    JsonNode scheduled = server.getJob(scheduledId);
    assertThat(scheduled.get("status").textValue()).isEqualTo("scheduled");
    assertThat(scheduled.get("ready_at").longValue()).isEqualTo(readyAtMs);
    assertThat(scheduled.get("priority").intValue()).isEqualTo(3);
    JsonNode failed = server.getJob(failedId);
    assertThat(failed.get("status").textValue()).isEqualTo("scheduled");
    assertThat(failed.get("attempts").intValue()).isEqualTo(1);
    assertThat(failed.get("payload")).isEqualTo(failing.get("payload"));
    JsonNode errors = server.get("/jobs/" + failedId + "/errors").json().get("errors");
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).get("message").textValue()).isEqualTo("before restart");
  }

  @Test
  void idsKeepIncreasingAcrossARestart() {
    String before = server.enqueueId("ids");

    server.restart();
    String after = server.enqueueId("ids");

    assertThat(after).isGreaterThan(before);
  }

  @Test
  void closingTheServerStopsItsThreads() {
    server.enqueueId("threads");
    try (WorkerStream stream = server.take("queue=threads")) {
      stream.nextJob();
      server.close();
      assertThat(stream.awaitEnd(ServerFixture.TIMEOUT)).isTrue();
    }

    ServerFixture.poll(ServerLifecycleHttpTest::liveSluiceThreads, List::isEmpty,
        "sluice-* threads to stop");

    // Started again so that the after-each close has a server to stop.
    server = ServerFixture.start(tempDir);
  }

  static List<String> liveSluiceThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("sluice-"))
        .sorted()
        .toList();
  }
}

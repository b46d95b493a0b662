package io.sluice.cli.http;

import static io.sluice.cli.http.ServerFixture.JSON;
import static io.sluice.cli.http.ServerFixture.MSGPACK_STREAM_TYPE;
import static io.sluice.cli.http.ServerFixture.NDJSON_TYPE;
import static io.sluice.cli.http.ServerFixture.id;
import static io.sluice.cli.http.ServerFixture.job;
import static io.sluice.cli.http.ServerFixture.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.cli.http.ServerFixture.Reply;
import io.sluice.engine.EngineConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code GET /jobs/take} (API.md §3.3, §4.1, §4.2, §8.4): framing, order, queue filters, prefetch,
 * heartbeats and requeue on disconnect. Each test uses its own queues.
 */
class TakeStreamHttpTest {
  @RegisterExtension static final ServerFixture server = ServerFixture.perTestClass();

  static ObjectNode richPayloadJob(String queue) {
    ObjectNode request = job(queue, "render");
    ObjectNode payload = request.putObject("payload");
    payload.put("greet", "World");
    payload.putArray("sizes").add(1).add(2).add(3);
    payload.putObject("nested").put("deep", true).putNull("none");
    return request;
  }

  /** A streamed job: with-payload shape, in flight, never the enqueue-only booleans. */
  static void assertStreamedShape(JsonNode delivered, JsonNode created, long beforeMs,
      long afterMs) {
    assertThat(delivered.get("id")).isEqualTo(created.get("id"));
    assertThat(delivered.get("type")).isEqualTo(created.get("type"));
    assertThat(delivered.get("queue")).isEqualTo(created.get("queue"));
    assertThat(delivered.get("priority").intValue()).isEqualTo(32768);
    assertThat(delivered.get("status").textValue()).isEqualTo("in_flight");
    assertThat(delivered.get("ready_at").longValue())
        .isEqualTo(created.get("ready_at").longValue());
    assertThat(delivered.get("attempts").intValue()).isZero();
    assertThat(delivered.get("dequeued_at").isIntegralNumber()).isTrue();
    assertThat(delivered.get("dequeued_at").longValue()).isBetween(beforeMs, afterMs);
    assertThat(delivered.has("duplicate")).isFalse();
    assertThat(delivered.has("folded")).isFalse();
    assertThat(EnqueueHttpTest.fieldNames(delivered)).containsExactlyInAnyOrder(
        "id", "type", "queue", "priority", "status", "payload", "ready_at", "attempts",
        "dequeued_at");
  }

  @Nested
  class Framing {
    @Test
    void ndjsonIsTheDefault() {
      String queue = uniqueName("ndjson");
      ObjectNode request = richPayloadJob(queue);
      JsonNode created = server.enqueue(request);
      long beforeMs = System.currentTimeMillis();

      try (WorkerStream stream = server.take("queue=" + queue)) {
        JsonNode delivered = stream.nextJob();
        long afterMs = System.currentTimeMillis();

        assertThat(stream.header("Content-Type")).isEqualTo(NDJSON_TYPE);
        assertStreamedShape(delivered, created, beforeMs, afterMs);
        assertThat(delivered.get("payload")).isEqualTo(request.get("payload"));
        server.ack(id(delivered));
      }
    }

    /**
     * Plain jobs are laid out straight into the delivery and the rest go through a generator: in
     * one delivery, each line is still whole and in dispatch order.
     */
    @Test
    void plainAndGeneratedJobsShareOneDelivery() {
      String queue = uniqueName("mixed");
      ObjectNode plain = job(queue, "plain");
      plain.putObject("payload").put("n", 1);
      ObjectNode limited = job(queue, "limited").put("retry_limit", 3);
      limited.putObject("payload").put("n", 2);
      ObjectNode large = job(queue, "large");
      large.putObject("payload").put("text", "x".repeat(5000));
      ObjectNode plainAgain = job(queue, "plain-again");
      plainAgain.putObject("payload").put("n", 4);
      List<ObjectNode> requests = List.of(plain, limited, large, plainAgain);
      List<String> ids = new ArrayList<>();
      for (ObjectNode request : requests) {
        ids.add(id(server.enqueue(request)));
      }

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=10")) {
        List<JsonNode> delivered = stream.nextJobs(requests.size());
        for (int i = 0; i < requests.size(); i++) {
          JsonNode job = delivered.get(i);
          assertThat(id(job)).isEqualTo(ids.get(i));
          assertThat(job.get("type").asText()).isEqualTo(requests.get(i).get("type").asText());
          assertThat(job.get("payload")).isEqualTo(requests.get(i).get("payload"));
          server.ack(id(job));
        }
        assertThat(delivered.get(1).get("retry_limit").asInt()).isEqualTo(3);
        assertThat(delivered.get(0).has("retry_limit")).isFalse();
      }
    }

    @ParameterizedTest
    @ValueSource(strings = {NDJSON_TYPE, "application/json", "*/*"})
    void ndjsonWhenAskedForIt(String accept) {
      String queue = uniqueName("ndjson-accept");
      JsonNode created = server.enqueue(queue, "work");

      try (WorkerStream stream = server.take("queue=" + queue, accept)) {
        assertThat(stream.header("Content-Type")).isEqualTo(NDJSON_TYPE);
        assertThat(id(stream.nextJob())).isEqualTo(id(created));
        server.ack(id(created));
      }
    }

    @ParameterizedTest
    @ValueSource(strings = {MSGPACK_STREAM_TYPE, "application/msgpack"})
    void messagePackStreamWhenAskedForIt(String accept) {
      String queue = uniqueName("mp-stream");
      ObjectNode request = richPayloadJob(queue);
      JsonNode created = server.enqueue(request);
      long beforeMs = System.currentTimeMillis();

      try (WorkerStream stream = server.take("queue=" + queue, accept)) {
        JsonNode delivered = stream.nextJob();
        long afterMs = System.currentTimeMillis();

        assertThat(stream.header("Content-Type")).isEqualTo(MSGPACK_STREAM_TYPE);
        assertStreamedShape(delivered, created, beforeMs, afterMs);
        assertThat(delivered.get("priority").isIntegralNumber()).isTrue();
        assertThat(delivered.get("ready_at").isIntegralNumber()).isTrue();
        assertThat(delivered.get("payload")).isEqualTo(request.get("payload"));
        server.ack(id(delivered));
      }
    }

    @Test
    void hugeIntegerPayloadCanBeReadAsMessagePack() {
      String queue = uniqueName("bigint-get");
      Reply enqueue = server.postJson("/jobs", "{\"type\":\"t\",\"queue\":\"" + queue
          + "\",\"payload\":{\"big\":123456789012345678901234567890}}");
      if (enqueue.status() == 400) {
        return; // Refusing such a payload up front is an acceptable answer too.
      }
      assertThat(enqueue.status()).isEqualTo(201);

      Reply reply = server.get("/jobs/" + id(enqueue.json()), "Accept", ServerFixture.MSGPACK_TYPE);

      assertThat(reply.status()).as("%s", reply).isEqualTo(200);
      assertThat(reply.msgpack().get("payload").get("big").isNumber()).isTrue();
    }

    @Test
    void hugeIntegerPayloadDoesNotStallAMessagePackStream() {
      String queue = uniqueName("bigint-stream");
      String before = server.enqueueId(queue);
      Reply enqueue = server.postJson("/jobs", "{\"type\":\"t\",\"queue\":\"" + queue
          + "\",\"payload\":{\"big\":123456789012345678901234567890}}");
      String after = server.enqueueId(queue);

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=0",
          MSGPACK_STREAM_TYPE)) {
        Set<String> received = new HashSet<>();
        int expected = enqueue.status() == 201 ? 3 : 2;
        for (int i = 0; i < expected; i++) {
          received.add(id(stream.nextJob()));
        }
        assertThat(received).contains(before, after);
        received.forEach(server::ack);
      }
    }

    @Test
    void headersArriveBeforeAnyJobExists() {
      // open() returns only after the status line and headers, which must not wait for a job.
      try (WorkerStream stream = server.take("queue=" + uniqueName("idle"))) {
        assertThat(stream.status()).isEqualTo(200);
        assertThat(stream.header("Content-Type")).isEqualTo(NDJSON_TYPE);
      }
    }

    @Test
    void unacceptableTypeIsNotAcceptable() {
      Reply reply = server.get("/jobs/take?queue=x", "Accept", "text/html");

      assertThat(reply.status()).isEqualTo(406);
      assertThat(reply.contentType()).isEqualTo("application/json");
      ObjectNode expected = JSON.createObjectNode().put("error", "not acceptable");
      expected.putArray("supported")
          .add("text/event-stream").add(NDJSON_TYPE).add(MSGPACK_STREAM_TYPE);
      assertThat(reply.json()).isEqualTo(expected);
    }
  }

  @Nested
  class Order {
    @Test
    void priorityThenFifoAcrossRequestedQueues() {
      String a = uniqueName("a");
      String b = uniqueName("b");
      String other = uniqueName("other");
      String a10 = id(server.enqueue(job(a, "a10").put("priority", 10)));
      String a5 = id(server.enqueue(job(a, "a5").put("priority", 5)));
      String aDefault = id(server.enqueue(a, "a-default"));
      String b5 = id(server.enqueue(job(b, "b5").put("priority", 5)));
      String b10 = id(server.enqueue(job(b, "b10").put("priority", 10)));
      server.enqueue(job(other, "excluded").put("priority", 0));

      List<String> order = new ArrayList<>();
      try (WorkerStream stream = server.take("queue=" + a + "," + b + "&prefetch=1")) {
        for (int i = 0; i < 5; i++) {
          String next = id(stream.nextJob());
          order.add(next);
          server.ack(next);
        }
        stream.assertNoJobWithin(Duration.ofMillis(150));
      }

      assertThat(order).containsExactly(a5, b5, a10, b10, aDefault);
    }

    @Test
    void queueFilterExcludesOtherQueues() {
      String wanted = uniqueName("wanted");
      String unwanted = uniqueName("unwanted");
      String unwantedId = id(server.enqueue(job(unwanted, "x").put("priority", 0)));
      String wantedId = id(server.enqueue(wanted, "y"));

      try (WorkerStream stream = server.take("queue=" + wanted + "&prefetch=0")) {
        assertThat(id(stream.nextJob())).isEqualTo(wantedId);
        stream.assertNoJobWithin(Duration.ofMillis(200));
        server.ack(wantedId);
      }
      assertThat(server.getJob(unwantedId).get("status").textValue()).isEqualTo("ready");
    }

    @Test
    void emptyElementsOfTheQueueListAreIgnored() {
      String a = uniqueName("sparse-a");
      String b = uniqueName("sparse-b");
      String inA = server.enqueueId(a);
      String inB = server.enqueueId(b);

      assertStreamDeliversBoth("queue=," + a + ",," + b + ",&prefetch=0", inA, inB);
    }

    @Test
    void queueValuesArePercentDecodedBeforeSplitting() {
      String a = uniqueName("dec-a");
      String spaced = uniqueName("dec b");
      String inA = server.enqueueId(a);
      String inSpaced = server.enqueueId(spaced);

      // "%2C" is a comma once decoded and "+" is a space.
      String query = "queue=" + a + "%2C" + spaced.replace(' ', '+') + "&prefetch=0";
      assertStreamDeliversBoth(query, inA, inSpaced);
    }

    @Test
    void jobEnqueuedWhileIdleWakesTheStream() {
      String queue = uniqueName("wake");
      try (WorkerStream stream = server.take("queue=" + queue)) {
        stream.awaitHeartbeat(Duration.ofSeconds(2));
        long enqueuedAtNs = System.nanoTime();
        String jobId = server.enqueueId(queue);

        JsonNode delivered = stream.nextJob();

        long latencyMs = (System.nanoTime() - enqueuedAtNs) / 1_000_000;
        assertThat(id(delivered)).isEqualTo(jobId);
        assertThat(latencyMs).as("delivery latency").isLessThan(1000);
        server.ack(jobId);
      }
    }

    @Test
    void eachJobGoesToExactlyOneOfTwoStreams() {
      String queue = uniqueName("shared");
      Set<String> enqueued = new HashSet<>();
      for (int i = 0; i < 8; i++) {
        enqueued.add(server.enqueueId(queue));
      }
      List<String> received = new ArrayList<>();
      try (WorkerStream first = server.take("queue=" + queue + "&prefetch=4");
          WorkerStream second = server.take("queue=" + queue + "&prefetch=4")) {
        for (int i = 0; i < 4; i++) {
          received.add(id(first.nextJob()));
          received.add(id(second.nextJob()));
        }
        first.assertNoJobWithin(Duration.ofMillis(100));
        second.assertNoJobWithin(Duration.ofMillis(50));
        received.forEach(server::ack);
      }
      assertThat(received).doesNotHaveDuplicates();
      assertThat(new HashSet<>(received)).isEqualTo(enqueued);
    }

    /**
     * Opens a take stream with {@code query}, asserts that its first two jobs are {@code first}
     * and {@code second} in either order, and acknowledges both.
     */
    private void assertStreamDeliversBoth(String query, String first, String second) {
      try (WorkerStream stream = server.take(query)) {
        Set<String> got = Set.of(id(stream.nextJob()), id(stream.nextJob()));
        assertThat(got).containsExactlyInAnyOrder(first, second);
        server.ack(first);
        server.ack(second);
      }
    }
  }

  @Nested
  class Prefetch {
    @Test
    void limitsUnfinishedJobsOnTheConnection() {
      String queue = uniqueName("prefetch");
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        ids.add(server.enqueueId(queue));
      }

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=2")) {
        String first = id(stream.nextJob());
        String second = id(stream.nextJob());
        assertThat(List.of(first, second)).containsExactlyElementsOf(ids.subList(0, 2));
        stream.assertNoJobWithin(Duration.ofMillis(300));

        server.ack(first);
        assertThat(id(stream.nextJob())).isEqualTo(ids.get(2));
        stream.assertNoJobWithin(Duration.ofMillis(200));

        server.ack(second);
        assertThat(id(stream.nextJob())).isEqualTo(ids.get(3));
        stream.assertNoJobWithin(Duration.ofMillis(200));

        server.ack(ids.get(2));
        server.ack(ids.get(3));
        assertThat(id(stream.nextJob())).isEqualTo(ids.get(4));
        server.ack(ids.get(4));
      }
    }

    @Test
    void defaultsToOne() {
      String queue = uniqueName("prefetch-default");
      String first = server.enqueueId(queue);
      String second = server.enqueueId(queue);

      try (WorkerStream stream = server.take("queue=" + queue)) {
        assertThat(id(stream.nextJob())).isEqualTo(first);
        stream.assertNoJobWithin(Duration.ofMillis(300));
        server.ack(first);
        assertThat(id(stream.nextJob())).isEqualTo(second);
        server.ack(second);
      }
    }

    @Test
    void zeroMeansUnlimited() {
      String queue = uniqueName("prefetch-zero");
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        ids.add(server.enqueueId(queue));
      }

      try (WorkerStream stream = server.take("queue=" + queue + "&prefetch=0")) {
        List<String> got = new ArrayList<>();
        for (JsonNode job : stream.nextJobs(5)) {
          got.add(id(job));
        }
        assertThat(got).containsExactlyElementsOf(ids);
        got.forEach(server::ack);
      }
    }

    @Test
    void failureReportFreesTheSlot() {
      String queue = uniqueName("prefetch-fail");
      String first = server.enqueueId(queue);
      String second = server.enqueueId(queue);

      try (WorkerStream stream = server.take("queue=" + queue)) {
        assertThat(id(stream.nextJob())).isEqualTo(first);
        ObjectNode report = JSON.createObjectNode().put("message", "later")
            .put("retry_at", System.currentTimeMillis() + 3_600_000);
        server.fail(first, report);

        assertThat(id(stream.nextJob())).isEqualTo(second);
        server.ack(second);
      }
    }

    @Test
    void largestValueIsAccepted() {
      try (WorkerStream stream = server.take("queue=" + uniqueName("max") + "&prefetch=65535")) {
        assertThat(stream.status()).isEqualTo(200);
      }
    }

    @ParameterizedTest
    @ValueSource(strings = {"65536", "-1", "abc", "1.5", "99999999999"})
    void outOfRangeIsBadRequest(String prefetch) {
      Reply reply = server.get("/jobs/take?queue=q&prefetch=" + prefetch);

      assertThat(reply.status()).isEqualTo(400);
      assertThat(reply.contentType()).isEqualTo("application/json");
      assertThat(reply.error()).startsWith("invalid query parameters");
    }
  }

  /** The next job that arrives on either stream, skipping heartbeats. */
  static JsonNode nextJobOnEither(WorkerStream a, WorkerStream b) {
    long deadline = System.nanoTime() + ServerFixture.TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      for (WorkerStream stream : List.of(a, b)) {
        WorkerStream.Frame frame = stream.nextFrame(Duration.ofMillis(10));
        if (frame instanceof WorkerStream.Job job) {
          return job.body();
        }
        if (frame instanceof WorkerStream.End || frame instanceof WorkerStream.Malformed) {
          throw new AssertionError("unexpected frame " + frame);
        }
      }
    }
    throw new AssertionError("no job on either stream within " + ServerFixture.TIMEOUT);
  }

  /** Cases that need a server of their own, because they see every queue or a global limit. */
  @Nested
  class OwnServer {
    @TempDir Path ownDir;

    @Test
    void emptyQueueParameterMeansEveryQueue() {
      try (ServerFixture own = ServerFixture.start(ownDir)) {
        String inA = own.enqueueId("a");
        String inB = own.enqueueId("b");

        for (String query : List.of("queue=&prefetch=0", "prefetch=0")) {
          try (WorkerStream stream = own.take(query)) {
            Set<String> got = Set.of(id(stream.nextJob()), id(stream.nextJob()));
            assertThat(got).as(query).containsExactlyInAnyOrder(inA, inB);
          }
          own.awaitJob(inA, j -> j.get("status").textValue().equals("ready"), "ready");
          own.awaitJob(inB, j -> j.get("status").textValue().equals("ready"), "ready");
        }
      }
    }

    @Test
    void globalInFlightLimitCapsAllStreams() {
      EngineConfig limited = EngineConfig.defaults().withGlobalInFlightLimit(2);
      try (ServerFixture own = ServerFixture.start(ownDir, limited)) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          ids.add(own.enqueueId("capped"));
        }
        // Prefetch 4 each: prefetch 0 would be capped at half the global limit per stream.
        try (WorkerStream first = own.take("queue=capped&prefetch=4");
            WorkerStream second = own.take("queue=capped&prefetch=4")) {
          List<String> got = new ArrayList<>();
          got.add(id(first.nextJob()));
          got.add(id(first.nextJob()));
          first.assertNoJobWithin(Duration.ofMillis(200));
          second.assertNoJobWithin(Duration.ofMillis(50));

          own.ack(got.get(0));
          got.add(id(nextJobOnEither(first, second)));
          first.assertNoJobWithin(Duration.ofMillis(150));
          second.assertNoJobWithin(Duration.ofMillis(50));

          assertThat(got).containsExactlyElementsOf(ids.subList(0, 3));
        }
      }
    }
  }

  @Nested
  class Heartbeats {
    @Test
    void idleNdjsonStreamGetsBlankLines() {
      try (WorkerStream stream = server.take("queue=" + uniqueName("hb"))) {
        long startNs = System.nanoTime();
        for (int i = 0; i < 3; i++) {
          stream.awaitHeartbeat(Duration.ofSeconds(2));
        }
        long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        // Three 200 ms intervals; far less would mean heartbeats are not paced by the interval.
        assertThat(elapsedMs).isBetween(400L, 3000L);
      }
    }

    @Test
    void idleMessagePackStreamGetsZeroLengthFrames() {
      try (WorkerStream stream = server.take("queue=" + uniqueName("hb-mp"),
          MSGPACK_STREAM_TYPE)) {
        stream.awaitHeartbeat(Duration.ofSeconds(2));
        stream.awaitHeartbeat(Duration.ofSeconds(2));
      }
    }

    @Test
    void jobsStillArriveAfterHeartbeats() {
      String queue = uniqueName("hb-then-job");
      try (WorkerStream stream = server.take("queue=" + queue, MSGPACK_STREAM_TYPE)) {
        stream.awaitHeartbeat(Duration.ofSeconds(2));
        String jobId = server.enqueueId(queue);
        assertThat(id(stream.nextJob())).isEqualTo(jobId);
        server.ack(jobId);
      }
    }
  }

  @Nested
  class Disconnect {
    @Test
    void closedConnectionRequeuesItsJobForTheNextWorker() {
      String queue = uniqueName("requeue");
      String jobId = server.enqueueId(queue);
      long dequeuedAtMs;

      try (WorkerStream first = server.take("queue=" + queue)) {
        JsonNode delivered = first.nextJob();
        assertThat(id(delivered)).isEqualTo(jobId);
        dequeuedAtMs = delivered.get("dequeued_at").longValue();
        assertThat(server.getJob(jobId).get("status").textValue()).isEqualTo("in_flight");
      }

      JsonNode requeued =
          server.awaitJob(jobId, j -> j.get("status").textValue().equals("ready"), "ready");
      assertThat(requeued.get("attempts").intValue()).isZero();
      assertThat(requeued.get("dequeued_at").longValue()).isEqualTo(dequeuedAtMs);

      try (WorkerStream second = server.take("queue=" + queue)) {
        JsonNode again = second.nextJob();
        assertThat(id(again)).isEqualTo(jobId);
        assertThat(again.get("status").textValue()).isEqualTo("in_flight");
        assertThat(again.get("attempts").intValue()).isZero();
        server.ack(jobId);
      }
    }

    @Test
    void everyPrefetchedJobIsRequeued() {
      String queue = uniqueName("requeue-batch");
      List<String> ids = List.of(
          server.enqueueId(queue), server.enqueueId(queue), server.enqueueId(queue));

      try (WorkerStream first = server.take("queue=" + queue + "&prefetch=3")) {
        assertThat(first.nextJobs(3)).extracting(ServerFixture::id)
            .containsExactlyElementsOf(ids);
      }

      for (String jobId : ids) {
        server.awaitJob(jobId, j -> j.get("status").textValue().equals("ready"), "ready");
      }
      try (WorkerStream second = server.take("queue=" + queue + "&prefetch=0")) {
        assertThat(second.nextJobs(3)).extracting(ServerFixture::id)
            .containsExactlyElementsOf(ids);
        ids.forEach(server::ack);
      }
    }

    @Test
    void workerThatStopsReadingIsNotGivenMoreJobs() {
      String queue = uniqueName("backpressure");
      String blob = "z".repeat(256 * 1024);
      int total = 48;
      List<String> ids = new ArrayList<>();
      WorkerStream stalled = WorkerStream.openUnread(server.port(), "/jobs/take?queue=" + queue
          + "&prefetch=0");
      try {
        assertThat(stalled.status()).isEqualTo(200);
        for (int i = 0; i < total; i++) {
          ObjectNode request = job(queue, "big");
          request.putObject("payload").put("blob", blob).put("n", i);
          ids.add(id(server.enqueue(request)));
        }

        // 12 MiB of jobs cannot all fit in the socket buffers of a worker that reads nothing.
        server.assertJobStays(ids.get(total - 1), j -> j.get("status").textValue().equals("ready"),
            Duration.ofMillis(300), "ready while its only worker reads nothing");

        try (WorkerStream reader = server.take("queue=" + queue + "&prefetch=0")) {
          Set<String> received = new HashSet<>();
          JsonNode first = reader.nextJob();
          received.add(id(first));
          stalled.close();
          while (received.size() < total) {
            String next = id(reader.nextJob());
            assertThat(received.add(next)).as("%s delivered twice", next).isTrue();
          }
          assertThat(received).containsExactlyInAnyOrderElementsOf(ids);
          received.forEach(server::ack);
        }
      } finally {
        stalled.close();
      }
    }

    @Test
    void aWorkerThatStopsReadingHoldsOnlyWhatCouldBeWrittenWhileAnotherDrainsTheQueue() {
      String queue = uniqueName("stalled-bulk");
      int total = 400;
      WorkerStream stalled = WorkerStream.openUnread(server.port(), "/jobs/take?queue=" + queue
          + "&prefetch=0");
      try {
        assertThat(stalled.status()).isEqualTo(200);
        // One bulk request: every job is ready in the same engine turn, 25 MiB in all.
        ObjectNode bulk = JSON.createObjectNode();
        ArrayNode jobs = bulk.putArray("jobs");
        String blob = "b".repeat(64 * 1024);
        for (int i = 0; i < total; i++) {
          ObjectNode request = job(queue, "big");
          request.putObject("payload").put("blob", blob).put("n", i);
          jobs.add(request);
        }
        assertThat(server.postJson("/jobs/bulk", bulk).status()).isEqualTo(201);

        awaitSteadyInFlight(queue);

        // A healthy worker drains every job the stalled one was not given, meanwhile: it reads
        // and acks until nothing is ready and its stream has gone idle.
        int drained = 0;
        try (WorkerStream reader = server.take("queue=" + queue + "&prefetch=8")) {
          while (true) {
            WorkerStream.Frame frame = reader.nextFrame(Duration.ofSeconds(1));
            if (frame instanceof WorkerStream.Job job) {
              server.ack(id(job.body()));
              drained++;
            } else if (count(queue, "ready") == 0) {
              // Nothing, or a heartbeat: the stream has been idle, so nothing is on its way.
              break;
            }
          }
        }
        long stalledHolds = count(queue, "in_flight");
        assertThat(drained + stalledHolds).isEqualTo(total);
        // Socket buffers of a few MiB and one delivery of at most 1 MiB: far from all 400.
        assertThat(stalledHolds).as("jobs in flight to a worker that reads nothing")
            .isPositive().isLessThanOrEqualTo(200);
      } finally {
        stalled.close();
      }
    }

    private long count(String queue, String status) {
      return server.get("/jobs/count?queue=" + queue + "&status=" + status).json().get("count")
          .asLong();
    }

    /** The queue's in-flight count once it has stopped changing for 300 ms (at most 10 s). */
    private long awaitSteadyInFlight(String queue) {
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      long last = -1;
      long steadySince = System.nanoTime();
      while (System.nanoTime() < deadline) {
        long now = server.get("/jobs/count?queue=" + queue + "&status=in_flight").json()
            .get("count").asLong();
        if (now != last) {
          last = now;
          steadySince = System.nanoTime();
        } else if (now > 0 && System.nanoTime() - steadySince > Duration.ofMillis(300).toNanos()) {
          return now;
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      throw new AssertionError("in-flight count of " + queue + " never settled (last " + last
          + ")");
    }

    @Test
    void ackAfterRequeueIsNotFound() {
      String queue = uniqueName("late-ack");
      String jobId = server.enqueueId(queue);
      try (WorkerStream stream = server.take("queue=" + queue)) {
        assertThat(id(stream.nextJob())).isEqualTo(jobId);
      }
      server.awaitJob(jobId, j -> j.get("status").textValue().equals("ready"), "ready");

      Reply reply = server.post("/jobs/" + jobId + "/success");

      assertThat(reply.status()).isEqualTo(404);
      assertThat(reply.error()).isEqualTo("job not found in in-flight set");
    }

    @Test
    void closingAnIdleStreamLeavesOtherStreamsWorking() {
      String queue = uniqueName("survivor");
      try (WorkerStream survivor = server.take("queue=" + queue)) {
        WorkerStream doomed = server.take("queue=" + queue);
        doomed.close();
        String jobId = server.enqueueId(queue);

        assertThat(id(survivor.nextJob())).isEqualTo(jobId);
        server.ack(jobId);
      }
    }
  }
}

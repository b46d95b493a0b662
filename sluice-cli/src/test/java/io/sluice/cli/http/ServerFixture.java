package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.api.ApiConfig;
import io.sluice.api.HttpLimits;
import io.sluice.api.wire.Format;
import io.sluice.cli.SluiceServer;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.EngineLoop;
import io.sluice.engine.ManualClock;
import io.sluice.store.rocks.StoreConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/**
 * A real Sluice server (RocksDB store, engine loop, Vert.x listeners) on ephemeral ports over a
 * temporary data directory, plus a blocking HTTP/1.1 client for it. Used from the test thread
 * only; every request and wait is bounded by {@link #TIMEOUT}.
 *
 * <p>A test class whose tests share one server keeps it in a {@code static final} field
 * annotated {@code @RegisterExtension} and set to {@link #perTestClass()}. The server starts
 * before the class's first test over a new temporary directory and stops, the directory deleted,
 * after its last; the class's {@code @Nested} classes use the same server. A test that needs a
 * server of its own calls {@link #start(Path)} and closes it.
 *
 * <p>A server runs on the wall clock unless it is given a {@link ManualClock}
 * ({@link #perTestClassOnManualClock()}, {@link #start(Path, ManualClock)}): then time stands
 * still until the test moves it with {@link #advance}, and a test of timing can assert exact
 * instants instead of windows that a loaded machine might miss.
 */
final class ServerFixture implements AutoCloseable, BeforeAllCallback, AfterAllCallback {
  static final ObjectMapper JSON = new ObjectMapper(Format.unbounded(new JsonFactory()));
  static final ObjectMapper MSGPACK =
      new ObjectMapper(Format.unbounded(new MessagePackFactory()));
  static final Duration TIMEOUT = Duration.ofSeconds(5);
  static final long HEARTBEAT_MS = 200;
  static final String MSGPACK_TYPE = "application/msgpack";
  static final String MSGPACK_STREAM_TYPE = "application/vnd.zizq.msgpack-stream";
  static final String NDJSON_TYPE = "application/x-ndjson";

  private static final AtomicInteger NAMES = new AtomicInteger();

  private final EngineConfig engineConfig;
  private final HttpLimits limits;
  private final InstantSource clock;
  private final HttpClient http;
  private Path dataDir;
  private SluiceServer server;

  /** Set only on a {@link #perTestClass()} fixture while its test class runs. */
  private Class<?> testClass;
  private Path ownTempDir;

  private ServerFixture(EngineConfig engineConfig, HttpLimits limits, InstantSource clock) {
    this.engineConfig = engineConfig;
    this.limits = limits;
    this.clock = clock;
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(TIMEOUT)
        .build();
  }

  /** A server for one test class, started and stopped by JUnit (see the class comment). */
  static ServerFixture perTestClass() {
    return perTestClass(HttpLimits.DEFAULTS);
  }

  /** The same, held to {@code limits}. */
  static ServerFixture perTestClass(HttpLimits limits) {
    return new ServerFixture(EngineConfig.defaults(), limits, Clock.systemUTC());
  }

  /** A server for one test class on a {@link ManualClock} at its default start. */
  static ServerFixture perTestClassOnManualClock() {
    return new ServerFixture(EngineConfig.defaults(), HttpLimits.DEFAULTS, new ManualClock());
  }

  /** A server over {@code tempDir}, started now; the caller closes it. */
  static ServerFixture start(Path tempDir) {
    return start(tempDir, EngineConfig.defaults());
  }

  static ServerFixture start(Path tempDir, EngineConfig engineConfig) {
    return start(tempDir, engineConfig, HttpLimits.DEFAULTS);
  }

  /** A server held to {@code limits}, started now; the caller closes it. */
  static ServerFixture start(Path tempDir, HttpLimits limits) {
    return start(tempDir, EngineConfig.defaults(), limits);
  }

  /** A server on {@code clock}, started now; the caller closes it. Restarts keep the clock. */
  static ServerFixture start(Path tempDir, ManualClock clock) {
    return start(tempDir, EngineConfig.defaults(), HttpLimits.DEFAULTS, clock);
  }

  private static ServerFixture start(Path tempDir, EngineConfig engineConfig, HttpLimits limits) {
    return start(tempDir, engineConfig, limits, Clock.systemUTC());
  }

  private static ServerFixture start(Path tempDir, EngineConfig engineConfig, HttpLimits limits,
      InstantSource clock) {
    ServerFixture fixture = new ServerFixture(engineConfig, limits, clock);
    fixture.dataDir = tempDir.resolve("data");
    fixture.server = fixture.boot();
    return fixture;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    if (testClass != null) {
      return; // a @Nested class inherits the extension and shares the enclosing class's server
    }
    testClass = context.getRequiredTestClass();
    ownTempDir = Files.createTempDirectory("sluice-http-test-");
    dataDir = ownTempDir.resolve("data");
    server = boot();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    if (context.getRequiredTestClass() != testClass) {
      return; // the end of a @Nested class, not of the class that started the server
    }
    testClass = null;
    try {
      close();
    } finally {
      if (ownTempDir != null) {
        deleteRecursively(ownTempDir);
        ownTempDir = null;
      }
    }
  }

  static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  /**
   * One event loop, as {@code sluice serve} has on two cores: the engine turns on it (the
   * engine's own thread is covered by the engine loop tests and the client's test server).
   */
  private SluiceServer boot() {
    return SluiceServer.start(
        new StoreConfig(dataDir, 64L << 20),
        engineConfig,
        new ApiConfig("127.0.0.1", 0, true, "127.0.0.1", 0, HEARTBEAT_MS, 1, null, null, limits),
        new EngineLoop.CommitModes(false, false),
        clock);
  }

  /** Stops the server and starts a new one over the same data directory. */
  void restart() {
    server.close();
    server = boot();
  }

  int port() {
    if (server == null) {
      throw new IllegalStateException("server not running: closed, or a perTestClass() fixture "
          + "used outside its test class or not in a static @RegisterExtension field");
    }
    return server.port();
  }

  /** The server's time now: what it would stamp on a job or budget changed at this moment. */
  long nowMs() {
    return clock.millis();
  }

  /**
   * Moves the manual clock on by {@code duration} and waits for an engine turn at the new time:
   * by the time this returns, the engine has promoted and refilled what fell due, and a request
   * sent afterwards is applied after that turn's dispatch, so it sees the outcome (a job sent to
   * a stream may still be on its way). Without the turn the engine would sleep on until the
   * wall-clock length of the wait it armed before the clock moved had passed.
   */
  void advance(Duration duration) {
    ManualClock manual = manualClock();
    manual.advance(duration);
    long targetMs = manual.millis();
    // A turn that read the clock just before the move may pick up the first command, but what
    // fell due at the new time runs only in a turn that read the new time: the next one does.
    long turnMs;
    do {
      turnMs = awaitEngineTurn();
    } while (turnMs < targetMs);
  }

  /**
   * Moves the manual clock on by {@code duration} and leaves the engine asleep, so that only the
   * wait the engine armed for its own next deadline can wake it: for tests of the engine's
   * timers, which {@link #advance} would step around. The wait armed before the move runs for
   * as long on the wall clock as it was meant to on the server's.
   */
  void advanceWithoutWaking(Duration duration) {
    manualClock().advance(duration);
  }

  /**
   * Has the engine's reaper run now, so that it runs next a whole reaper interval later: until
   * then a job past its purge_at stays in the engine, and only the rule that hides such jobs
   * keeps it from the API. The reaper runs at most once an interval, and only when a job is due.
   */
  void runReaperNow() {
    ObjectNode brief = job(uniqueName("reaped"), "brief");
    brief.putObject("retention").put("completed_ms", 1);
    try (Taken taken = takeOne(brief)) {
      ack(taken.id());
    }
    advance(Duration.ofMillis(engineConfig.reaperIntervalMs() + 1));
  }

  private long awaitEngineTurn() {
    port(); // fails clearly when no server runs
    try {
      return server.runEngineTurn().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for an engine turn");
    } catch (ExecutionException e) {
      throw new AssertionError("engine turn failed", e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no engine turn within " + TIMEOUT, e);
    }
  }

  private ManualClock manualClock() {
    if (clock instanceof ManualClock manual) {
      return manual;
    }
    throw new IllegalStateException("this server runs on the wall clock; only a server on a "
        + "ManualClock can be moved in time");
  }

  /** A name no other test in this JVM uses, for queues that must start empty. */
  static String uniqueName(String prefix) {
    return prefix + "-" + NAMES.incrementAndGet();
  }

  @Override
  public void close() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  // ---- raw requests --------------------------------------------------------------------------

  /** A complete response. */
  record Reply(int status, HttpHeaders headers, byte[] body) {
    String contentType() {
      return headers.firstValue("content-type").orElse(null);
    }

    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    JsonNode json() {
      return parse(JSON);
    }

    JsonNode msgpack() {
      return parse(MSGPACK);
    }

    /** The {@code error} member of a JSON error body. */
    String error() {
      JsonNode error = json().get("error");
      assertThat(error).as("error member of %s", text()).isNotNull();
      assertThat(error.isTextual()).as("error is a string in %s", text()).isTrue();
      return error.textValue();
    }

    private JsonNode parse(ObjectMapper mapper) {
      assertThat(body).as("response body (status %d)", status).isNotEmpty();
      try {
        return mapper.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("unparsable body (status " + status + "): " + text(), e);
      }
    }

    @Override
    public String toString() {
      return status + " " + contentType() + " " + text();
    }
  }

  URI uri(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + port() + pathAndQuery);
  }

  /** Sends a request; {@code headers} are name/value pairs. A null body sends none. */
  Reply send(String method, String pathAndQuery, byte[] body, String... headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(pathAndQuery))
        .timeout(TIMEOUT)
        .method(method, body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    try {
      HttpResponse<byte[]> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      return new Reply(response.statusCode(), response.headers(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + pathAndQuery, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  Reply get(String pathAndQuery, String... headers) {
    return send("GET", pathAndQuery, null, headers);
  }

  /** POST with no body and no Content-Type. */
  Reply post(String pathAndQuery) {
    return send("POST", pathAndQuery, null);
  }

  Reply postJson(String pathAndQuery, String json, String... headers) {
    String[] all = new String[headers.length + 2];
    all[0] = "Content-Type";
    all[1] = "application/json";
    System.arraycopy(headers, 0, all, 2, headers.length);
    return send("POST", pathAndQuery, json.getBytes(StandardCharsets.UTF_8), all);
  }

  Reply postJson(String pathAndQuery, JsonNode json) {
    return postJson(pathAndQuery, json.toString());
  }

  /** POST a MessagePack body, asking for a MessagePack response. */
  Reply postMsgpack(String pathAndQuery, byte[] body) {
    return send("POST", pathAndQuery, body,
        "Content-Type", MSGPACK_TYPE, "Accept", MSGPACK_TYPE);
  }

  /** DELETE with no body. */
  Reply delete(String pathAndQuery) {
    return send("DELETE", pathAndQuery, null);
  }

  /** PATCH with a JSON body. */
  Reply patchJson(String pathAndQuery, String json) {
    return send("PATCH", pathAndQuery, json.getBytes(StandardCharsets.UTF_8),
        "Content-Type", "application/json");
  }

  Reply patchJson(String pathAndQuery, JsonNode json) {
    return patchJson(pathAndQuery, json.toString());
  }

  /** The server's root directory: where its data directory and backup checkpoints live. */
  Path rootDir() {
    return dataDir.getParent();
  }

  int adminPort() {
    port(); // fails clearly when no server runs
    return server.adminPort();
  }

  /** A request with no body to the admin listener. */
  Reply admin(String method, String path) {
    HttpRequest request = HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + adminPort() + path))
        .timeout(TIMEOUT)
        .method(method, HttpRequest.BodyPublishers.noBody())
        .build();
    try {
      HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      return new Reply(response.statusCode(), response.headers(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + path + " (admin)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static byte[] toMsgpack(JsonNode node) {
    try {
      return MSGPACK.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ---- job helpers ---------------------------------------------------------------------------

  /** The {@code id} member of a job as the API returns it. */
  static String id(JsonNode job) {
    return job.get("id").textValue();
  }

  /** A minimal valid enqueue request with an object payload. */
  static ObjectNode job(String queue, String type) {
    ObjectNode job = JSON.createObjectNode();
    job.put("type", type);
    job.put("queue", queue);
    job.putObject("payload").put("n", 1);
    return job;
  }

  /** Enqueues and asserts 201; returns the response body. */
  JsonNode enqueue(ObjectNode job) {
    Reply reply = postJson("/jobs", job);
    assertThat(reply.status()).as("enqueue %s -> %s", job, reply).isEqualTo(201);
    return reply.json();
  }

  JsonNode enqueue(String queue, String type) {
    return enqueue(job(queue, type));
  }

  String enqueueId(String queue) {
    return id(enqueue(queue, "work"));
  }

  /** GET /jobs/{id} asserting 200. */
  JsonNode getJob(String id) {
    Reply reply = get("/jobs/" + id);
    assertThat(reply.status()).as("GET /jobs/%s -> %s", id, reply).isEqualTo(200);
    return reply.json();
  }

  /** Polls GET /jobs/{id} until {@code done} holds, failing after {@link #TIMEOUT}. */
  JsonNode awaitJob(String id, Predicate<JsonNode> done, String what) {
    return poll(() -> getJob(id), done, "job " + id + " to be " + what);
  }

  /** Asserts that GET /jobs/{id} satisfies {@code holds} throughout {@code window}. */
  void assertJobStays(String id, Predicate<JsonNode> holds, Duration window, String what) {
    long deadline = System.nanoTime() + window.toNanos();
    do {
      JsonNode job = getJob(id);
      assertThat(holds.test(job)).as("job %s should stay %s: %s", id, what, job).isTrue();
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted");
      }
    } while (System.nanoTime() < deadline);
  }

  void ack(String id) {
    Reply reply = post("/jobs/" + id + "/success");
    assertThat(reply.status()).as("ack %s -> %s", id, reply).isEqualTo(204);
  }

  JsonNode fail(String id, ObjectNode report) {
    Reply reply = postJson("/jobs/" + id + "/failure", report);
    assertThat(reply.status()).as("fail %s -> %s", id, reply).isEqualTo(200);
    return reply.json();
  }

  /** A job that a worker has taken: it is in flight until acknowledged or the stream closes. */
  record Taken(String id, JsonNode delivered, WorkerStream stream) implements AutoCloseable {
    long dequeuedAtMs() {
      return delivered.get("dequeued_at").longValue();
    }

    @Override
    public void close() {
      stream.close();
    }
  }

  /**
   * Enqueues {@code request}, opens a take stream on its queue and asserts that the job is the
   * first delivered. The stream stays open in the returned {@link Taken}.
   */
  Taken takeOne(ObjectNode request) {
    String queue = request.get("queue").textValue();
    String jobId = id(enqueue(request));
    WorkerStream stream = take("queue=" + queue);
    try {
      JsonNode delivered = stream.nextJob();
      assertThat(id(delivered)).isEqualTo(jobId);
      return new Taken(jobId, delivered, stream);
    } catch (RuntimeException | Error e) {
      stream.close();
      throw e;
    }
  }

  /** {@link #takeOne(ObjectNode)} for a minimal job in {@code queue}, as {@link #enqueueId}. */
  Taken takeOne(String queue) {
    return takeOne(job(queue, "work"));
  }

  WorkerStream take(String query) {
    return take(query, null);
  }

  /** Opens a take stream ({@code query} without '?'); asserts 200. */
  WorkerStream take(String query, String accept) {
    WorkerStream stream = WorkerStream.open(port(), "/jobs/take?" + query, accept);
    assertThat(stream.status()).as("take stream status for %s", query).isEqualTo(200);
    return stream;
  }

  /**
   * Proves the server holds no other ready job in {@code queue} (null: in any queue): enqueues a
   * sentinel at the lowest priority, which an unlimited take stream can only see first when
   * nothing else is runnable there. Every job the stream receives is acknowledged, so a stray job
   * fails only the test that stored it.
   */
  void assertNothingReady(String queue) {
    String sentinelQueue = queue == null ? uniqueName("sentinel") : queue;
    ObjectNode sentinel = job(sentinelQueue, "sentinel");
    sentinel.put("priority", 65535);
    String sentinelId = id(enqueue(sentinel));
    String filter = queue == null ? "" : "queue=" + queue + "&";
    List<JsonNode> received = new ArrayList<>();
    try (WorkerStream stream = take(filter + "prefetch=0")) {
      JsonNode next = stream.nextJob();
      received.add(next);
      while (!id(next).equals(sentinelId)) {
        next = stream.nextJob();
        received.add(next);
      }
      stream.assertNoJobWithin(Duration.ofMillis(50));
      for (JsonNode job : received) {
        ack(id(job));
      }
    }
    assertThat(received).as("runnable jobs besides the sentinel %s", sentinelId).hasSize(1);
  }

  /** Repeats {@code probe} until {@code done} accepts its value, for at most {@link #TIMEOUT}. */
  static <T> T poll(Supplier<T> probe, Predicate<T> done, String what) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    T last = probe.get();
    while (!done.test(last)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what + "; last value: " + last);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
      last = probe.get();
    }
    return last;
  }
}

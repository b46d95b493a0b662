package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * One {@code GET /jobs/take} NDJSON stream on its own connection, turning lines into
 * {@link JobSink#onJob} calls.
 *
 * <p>The connection is opened separately from the request so a workload can have every stream
 * connected before its clock starts, and then start the streams themselves as the "go" signal.
 * An HTTP/1.1 connection carrying an endless response can carry nothing else, which is why acks
 * never go through here.
 */
public final class TakeStream {

  /** Called on the stream's context for every job line. */
  public interface JobSink {
    /**
     * @param seq the payload's sequence number when the job carries this run's nonce, else -1
     */
    void onJob(String id, int seq);
  }

  private final Context ctx;
  private final JobSink sink;
  private final NdjsonSplitter splitter = new NdjsonSplitter();
  private final JobLineScanner scanner;
  private final NdjsonSplitter.LineHandler lineHandler = this::onLine;
  private final Promise<Void> broken = Promise.promise();

  private volatile HttpClientConnection conn;
  private volatile boolean closing;

  /** The job line being handed to the sink; only touched on ctx. */
  private byte[] lineBytes;
  private int lineStart;
  private int lineEnd;
  // Only touched on ctx; read by the main thread after the stream is closed.
  private long jobLines;
  private long heartbeats;
  private long foreignLines;

  public TakeStream(Context ctx, String nonce, JobSink sink) {
    this.ctx = ctx;
    this.sink = sink;
    this.scanner = new JobLineScanner(nonce);
  }

  public Future<Void> connect(HttpClientAgent connector, Endpoint endpoint) {
    return ClientKit.connect(ctx, connector, endpoint).map(c -> {
      conn = c;
      c.closeHandler(v -> {
        if (!closing) {
          broken.tryFail(new BenchFailure("take stream connection closed by the server"));
        }
      });
      return null;
    });
  }

  /**
   * Sends the take request. Completes when the response head has arrived with status 200; jobs
   * may start flowing right after, on this stream's context.
   */
  public Future<Void> open(String queue, int prefetch) {
    String uri = "/jobs/take?queue=" + URLEncoder.encode(queue, StandardCharsets.UTF_8) + "&prefetch=" + prefetch;
    return ClientKit.onContext(ctx, () -> conn.request(HttpMethod.GET, uri)
        .compose(req -> req.putHeader("Accept", "application/x-ndjson").send())
        .compose(this::attach));
  }

  /** Fails if the stream ends or errors while the bench still expects jobs; never succeeds. */
  public Future<Void> broken() {
    return broken.future();
  }

  public Future<Void> close() {
    closing = true;
    HttpClientConnection c = conn;
    conn = null; // makes close() idempotent
    if (c == null) {
      return Future.succeededFuture();
    }
    return ClientKit.onContext(ctx, c::close);
  }

  long jobLines() {
    return jobLines;
  }

  long heartbeats() {
    return heartbeats;
  }

  /** Lines that were neither a heartbeat nor a job with an id; should stay 0. */
  long foreignLines() {
    return foreignLines;
  }

  private Future<Void> attach(HttpClientResponse resp) {
    if (resp.statusCode() != 200) {
      return resp.body().transform(ar -> Future.failedFuture(new BenchFailure(
          "take stream answered " + resp.statusCode() + ": " + (ar.succeeded() ? Snippet.of(ar.result()) : ""))));
    }
    // Setting the handler inside the response callback guarantees no chunk is missed.
    resp.handler(this::onChunk);
    resp.exceptionHandler(e -> {
      if (!closing) {
        broken.tryFail(new BenchFailure("take stream failed: " + e, e));
      }
    });
    resp.endHandler(v -> {
      if (!closing) {
        broken.tryFail(new BenchFailure("take stream ended by the server"));
      }
    });
    return Future.succeededFuture();
  }

  private void onChunk(Buffer chunk) {
    try {
      splitter.feed(chunk, lineHandler);
    } catch (RuntimeException e) {
      broken.tryFail(e);
    }
  }

  private void onLine(byte[] b, int start, int end) {
    if (start == end) {
      heartbeats++;
      return;
    }
    if (!scanner.scan(b, start, end)) {
      foreignLines++;
      return;
    }
    jobLines++;
    lineBytes = b;
    lineStart = start;
    lineEnd = end;
    sink.onJob(scanner.id(b), scanner.nonceMatches() ? scanner.seq() : -1);
    lineBytes = null;
  }

  /** The {@code dequeued_at} of the job being handed to {@link JobSink#onJob}; only valid during that call. */
  long currentDequeuedAtMs() {
    requireInsideOnJob();
    return JobLineScanner.dequeuedAtMs(lineBytes, lineStart, lineEnd);
  }

  /**
   * The {@code attempts} of the job being handed to {@link JobSink#onJob}, or -1 when absent;
   * only valid during that call.
   */
  public long currentAttempts() {
    requireInsideOnJob();
    return JobLineScanner.attempts(lineBytes, lineStart, lineEnd);
  }

  private void requireInsideOnJob() {
    if (lineBytes == null) {
      throw new IllegalStateException("only valid inside JobSink.onJob");
    }
  }
}

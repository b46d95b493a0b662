package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import java.util.concurrent.TimeUnit;

/**
 * Sequential, timed {@code GET}s over one keep-alive connection. The clock runs on the event loop
 * from handing the request to the client until the last byte of the body has arrived, so the
 * main thread's hand-offs are not part of the figure.
 */
final class TimedGets implements AutoCloseable {

  /** What the server answered and how long the whole exchange took. */
  record Answer(String uri, int status, Buffer body, long nanos) {
    /** Fails with the server's own answer unless the status is 200. */
    Answer expectOk() {
      if (status != 200) {
        throw new BenchFailure("GET " + uri + " answered " + status + ": " + Snippet.of(body));
      }
      return this;
    }
  }

  private final Context ctx;
  private final HttpClientAgent client;
  private final long timeoutSec;

  TimedGets(ClientKit kit, Endpoint endpoint, int contextIndex, long timeoutSec) {
    this.ctx = kit.context(contextIndex);
    this.client = kit.pooledClient(endpoint, 1);
    this.timeoutSec = timeoutSec;
  }

  /** One GET, bounded by the timeout given at construction. */
  Answer get(String uri) {
    return Await.result(ClientKit.onContext(ctx, () -> send(uri)), timeoutSec, TimeUnit.SECONDS, "GET " + uri);
  }

  private Future<Answer> send(String uri) {
    long start = System.nanoTime();
    return client.request(HttpMethod.GET, uri)
        .compose(HttpClientRequest::send)
        .compose(resp -> resp.body().map(body -> new Answer(uri, resp.statusCode(), body, System.nanoTime() - start)));
  }

  @Override
  public void close() {
    Await.quietly(client.close(), 5_000);
  }
}

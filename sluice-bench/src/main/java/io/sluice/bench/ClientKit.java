package io.sluice.bench;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnectOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The Vert.x plumbing shared by all workloads: one Vertx for the whole bench, event-loop contexts
 * to pin each lane/worker to, and HTTP/1.1 keep-alive clients.
 *
 * <p>Pinning matters: a worker's take stream, its acks and its batching state all live on one
 * event loop, so the worker needs no locks and "same event-loop turn" has a precise meaning.
 */
public final class ClientKit implements AutoCloseable {

  private static final int CONNECT_TIMEOUT_MS = 10_000;

  private final Vertx vertx;
  private final List<Context> contexts = new ArrayList<>();

  public ClientKit(int eventLoops) {
    this.vertx = Vertx.builder().with(new VertxOptions().setEventLoopPoolSize(eventLoops)).build();
  }

  /**
   * The i-th pinned context. Deploying a no-op verticle is the public way to get a fresh context,
   * and Vert.x assigns deployments to event loops round-robin, which spreads workers evenly.
   */
  public synchronized Context context(int i) {
    while (contexts.size() <= i) {
      Promise<Context> made = Promise.promise();
      vertx.deployVerticle(new VerticleBase() {
        @Override
        public Future<?> start() {
          made.complete(context);
          return Future.succeededFuture();
        }
      });
      contexts.add(Await.result(made.future(), 10, TimeUnit.SECONDS, "creating event-loop context"));
    }
    return contexts.get(i);
  }

  /**
   * A pooled keep-alive client. Used where requests are independent (open-loop enqueues, single
   * acks) and a request must not wait behind another on one connection.
   */
  public HttpClientAgent pooledClient(Endpoint endpoint, int maxConnections) {
    HttpClientOptions options = baseOptions()
        .setDefaultHost(endpoint.host())
        .setDefaultPort(endpoint.port());
    return vertx.httpClientBuilder()
        .with(options)
        .with(new PoolOptions().setHttp1MaxSize(maxConnections))
        // As for dedicated connections: failures reach the bench through request futures.
        .withConnectHandler(conn -> conn.exceptionHandler(e -> {}))
        .build();
  }

  /** A client whose only use is {@link #connect}: dedicated connections bypass its pool. */
  public HttpClientAgent connector() {
    return vertx.createHttpClient(baseOptions());
  }

  /**
   * Opens one dedicated connection from inside {@code ctx}, so that requests on it and their
   * callbacks stay on that context.
   */
  public static Future<HttpClientConnection> connect(Context ctx, HttpClientAgent connector, Endpoint endpoint) {
    return onContext(ctx, () -> connector.connect(new HttpConnectOptions()
        .setHost(endpoint.host())
        .setPort(endpoint.port())
        .setConnectTimeout(CONNECT_TIMEOUT_MS))
        .map(conn -> {
          // Failures already reach the bench through request futures and close handlers;
          // without this Vert.x would also log each one as SEVERE.
          conn.exceptionHandler(e -> {});
          return conn;
        }));
  }

  /**
   * One {@code GET /health} on a fresh connection before any clock starts: the first request
   * through Vert.x loads and initialises a lot of classes, and that one-off cost would otherwise
   * land in the first run's measurement.
   */
  static Future<Void> probe(HttpClientConnection conn) {
    return conn.request(HttpMethod.GET, "/health")
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(body -> {
          if (resp.statusCode() != 200) {
            throw new BenchFailure("GET /health answered " + resp.statusCode() + ": " + Snippet.of(body));
          }
          return null;
        }));
  }

  /**
   * Runs an async action on {@code ctx}. The returned future can be awaited from any thread, and
   * runs whatever is chained on it on {@code ctx} too, even when chained from another thread after
   * it completed.
   *
   * <p>That matters for a request chained on a new connection: sent from the bench's main thread,
   * its response is handled on the event loop while the main thread chains the body read, and
   * Vert.x 5.0.7 then loses the response's end if it comes first, so the body never completes
   * (seen as "connecting enqueue lanes did not finish": about one probe in 4,000). Even on the
   * loop, a response's body must be asked for in the callback that receives the response, not
   * in a later turn: Vert.x drops what arrives before anyone listens.
   */
  public static <T> Future<T> onContext(Context ctx, Supplier<Future<T>> action) {
    CompletableFuture<T> result = new CompletableFuture<>();
    ctx.runOnContext(v -> {
      try {
        action.get().onComplete(result::complete, result::completeExceptionally);
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
      }
    });
    return Future.fromCompletionStage(result, ctx);
  }

  private static HttpClientOptions baseOptions() {
    return new HttpClientOptions()
        .setKeepAlive(true)
        .setPipelining(false)
        .setTcpNoDelay(true)
        .setConnectTimeout(CONNECT_TIMEOUT_MS);
  }

  @Override
  public void close() {
    Await.quietly(vertx.close(), 10_000);
  }
}

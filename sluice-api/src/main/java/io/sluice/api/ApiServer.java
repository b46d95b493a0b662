package io.sluice.api;

import io.sluice.api.dashboard.Dashboard;
import io.sluice.api.events.EventsFeed;
import io.sluice.api.events.Throughput;
import io.sluice.api.http.DirectAnswers;
import io.sluice.api.http.Exchange;
import io.sluice.api.http.GuardedTransport;
import io.sluice.api.http.HttpError;
import io.sluice.api.http.InvalidRequests;
import io.sluice.api.http.Router;
import io.sluice.api.metrics.HttpRequestMetrics;
import io.sluice.api.metrics.ServerMetrics;
import io.sluice.engine.EngineLoop;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.store.JobStore;
import io.sluice.engine.store.StorageMaintenance;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.internal.VertxInternal;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary and admin HTTP listeners on Vert.x: HTTP/1.1 and cleartext HTTP/2 (prior
 * knowledge) on the same port. Owns the Vert.x instance and every open take stream.
 */
public final class ApiServer implements AutoCloseable {
  public static final String API_VERSION = "0.7.0";
  private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

  private final ApiConfig config;
  private final Vertx vertx;
  private final Router primaryRoutes = new Router();
  private final Router adminRoutes = new Router();
  private final Set<TakeStream> streams = ConcurrentHashMap.newKeySet();
  private final Compactor compactor;
  private final HttpRequestMetrics requestMetrics;
  private final List<HttpServer> servers = new ArrayList<>();
  private final DirectAnswers directAnswers = new DirectAnswers();
  /** The engine loop turning on this server's one event loop, or null. */
  private final EngineLoop hostedEngine;
  private HttpServer primary;
  private HttpServer admin;

  /** A server whose {@code /metrics} shows only the JVM, HTTP requests and workers. */
  public ApiServer(ApiConfig config, EngineLoop loop, JobStore store,
      StorageMaintenance maintenance, MaintenanceConfig maintenanceConfig, InstantSource clock,
      JobIdGenerator jobIds) {
    this(config, loop, store, maintenance, maintenanceConfig, clock, jobIds, new ServerMetrics());
  }

  /**
   * {@code jobIds} is shared with the engine (cron fires), so ids sort in creation order;
   * {@code metrics} is served on the admin listener, with this server's requests and streams.
   */
  public ApiServer(ApiConfig config, EngineLoop loop, JobStore store,
      StorageMaintenance maintenance, MaintenanceConfig maintenanceConfig, InstantSource clock,
      JobIdGenerator jobIds, ServerMetrics metrics) {
    this.config = config;
    this.vertx = Vertx.builder()
        .with(new VertxOptions().setEventLoopPoolSize(config.eventLoops()))
        .withTransport(GuardedTransport.of(config.limits(), directAnswers))
        .build();
    directAnswers.use(vertx);
    EngineGateway engine = new EngineGateway(loop);
    compactor = new Compactor(maintenance, maintenanceConfig.autoCompactThreshold());
    JobRoutes jobRoutes = new JobRoutes(vertx, engine, store, clock, jobIds, config, streams);
    Map<String, BudgetState> budgetStates = loop.call((eng, nowMs) -> eng.budgetStates());
    BudgetRoutes budgetRoutes = new BudgetRoutes(engine, budgetStates, clock);
    CronRoutes cronRoutes = new CronRoutes(engine);
    JobWaitRoutes waitRoutes = new JobWaitRoutes(engine);
    PartitionRoutes partitionRoutes = new PartitionRoutes(engine, clock);
    JobQueries queries = new JobQueries(store, loop.call((eng, nowMs) -> eng.inFlightView()));
    PayloadSelection selection = new PayloadSelection(vertx, queries, clock);
    BindingRoutes bindingRoutes = new BindingRoutes(engine, selection);
    QueryRoutes queryRoutes = new QueryRoutes(vertx, queries, selection, engine, clock, compactor);
    // The dashboard, served by the admin listener, calls the public API's own handlers there
    // under /api: same origin, and the admin listener's TLS applies (docs/decisions.md).
    for (Router api : List.of(primaryRoutes, adminRoutes.under(Dashboard.API_PREFIX))) {
      jobRoutes.register(api);
      budgetRoutes.register(api);
      partitionRoutes.register(api);
      cronRoutes.register(api);
      waitRoutes.register(api);
      bindingRoutes.register(api);
      queryRoutes.register(api);
    }
    adminRoutes.add(HttpMethod.GET, "/health", (ex, p) -> JobRoutes.health(ex));
    metrics.watchWorkers(streams::size);
    metrics.serve(vertx, adminRoutes);
    requestMetrics = metrics.http();
    new MaintenanceRoutes(vertx, maintenance, maintenanceConfig.scratchDir(), compactor)
        .register(adminRoutes);
    Throughput throughput = new Throughput(metrics::jobTotals, streams::size);
    throughput.sampleEverySecond(vertx, clock);
    new EventsFeed(vertx, engine, queries, loop.call((eng, nowMs) -> eng.queueCounts()),
        budgetStates, clock, ProductVersion.VERSION, API_VERSION, throughput)
        .register(adminRoutes);
    new Dashboard().register(adminRoutes);
    if (config.eventLoops() == 1) {
      // One event loop serves every connection: the engine turns on it too, so an enqueue, its
      // answer and its delivery never wait for another thread to wake (docs/decisions.md).
      loop.hostOn(((VertxInternal) vertx).nettyEventLoopGroup().next());
      hostedEngine = loop;
    } else {
      hostedEngine = null;
    }
  }

  /** Serves {@code GET /cluster} on the admin listener; call before {@link #start}. */
  public void serveCluster(ClusterView cluster) {
    adminRoutes.add(HttpMethod.GET, "/cluster", (ex, p) -> ex.send(200, json -> {
      json.writeStartObject();
      cluster.writeStatus(json);
      json.writeEndObject();
    }));
  }

  /** Binds the admin listener (if enabled), then the primary one; fails if a port is taken. */
  public void start() {
    if (config.adminEnabled()) {
      admin = listen(adminRoutes, config.adminHost(), config.adminPort(), config.adminTls(),
          "admin", true);
    }
    primary = listen(primaryRoutes, config.host(), config.port(), config.tls(), "primary", false);
  }

  /** {@code webSockets}: whether the listener serves any (the events feed on the admin one). */
  private HttpServer listen(Router router, String host, int port, TlsSettings tls, String name,
      boolean webSockets) {
    HttpServerOptions options = new HttpServerOptions()
        .setHost(host)
        .setPort(port)
        .setTcpNoDelay(true)
        .setMaxInitialLineLength(InvalidRequests.MAX_REQUEST_LINE_BYTES)
        .setMaxHeaderSize(InvalidRequests.MAX_HEADER_BYTES)
        .setCompressionSupported(false);
    if (!webSockets) {
      // With either compression on, every connection's pipeline holds an extension handler that
      // inspects each response: 4% of the event loop at 500 single jobs a second.
      options.setPerFrameWebSocketCompressionSupported(false)
          .setPerMessageWebSocketCompressionSupported(false);
    }
    if (tls == null) {
      options.setHttp2ClearTextEnabled(true);
    } else {
      TlsListener.configure(options, tls);
    }
    Consumer<Exchange> handler = exchange -> {
      requestMetrics.count(exchange);
      router.route(exchange);
    };
    Future<HttpServer> bound = vertx.createHttpServer(options)
        .requestHandler(request -> handler.accept(new Exchange(request, config.limits())))
        .invalidRequestHandler(InvalidRequests::answer)
        .exceptionHandler(HttpError::logConnectionFailure)
        .listen();
    try {
      HttpServer server = bound.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      servers.add(server);
      directAnswers.serve(host, server.actualPort(), router, handler);
      LOG.info("listening on {}://{}:{} ({}{})", scheme(tls), host,
          server.actualPort(), name, tls == null ? "" : tls.mutual() ? ", mutual TLS" : ", TLS");
      return server;
    } catch (Exception e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new IllegalStateException(
          "cannot listen on " + host + ":" + port + " (" + name + "): " + cause.getMessage(),
          cause);
    }
  }

  public int port() {
    return primary.actualPort();
  }

  public int adminPort() {
    return admin == null ? -1 : admin.actualPort();
  }

  /** {@code http} or {@code https}, for announcing the listeners. */
  public String scheme(boolean adminListener) {
    return scheme(adminListener ? config.adminTls() : config.tls());
  }

  private static String scheme(TlsSettings tls) {
    return tls == null ? "http" : "https";
  }

  /** Stops accepting connections and ends every take stream. */
  @Override
  public void close() {
    compactor.close();
    for (HttpServer server : servers) {
      await(server.close());
    }
    for (TakeStream stream : List.copyOf(streams)) {
      stream.endOnItsLoop();
    }
    if (hostedEngine != null) {
      hostedEngine.leaveHost();
    }
    await(vertx.close());
  }

  /** Waits (bounded) for a shutdown step; one that does not finish is logged, not thrown. */
  static void await(Future<?> future) {
    try {
      future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("shutdown step did not finish cleanly: {}", e.toString());
    }
  }
}

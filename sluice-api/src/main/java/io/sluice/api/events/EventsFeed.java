package io.sluice.api.events;

import io.sluice.api.EngineGateway;
import io.sluice.api.JobQueries;
import io.sluice.api.http.Exchange;
import io.sluice.api.http.HttpError;
import io.sluice.api.http.Router;
import io.sluice.engine.QueueCounts;
import io.sluice.engine.budget.BudgetState;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.time.InstantSource;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /events} on the admin listener (CLI.md §9): upgrades the request to a WebSocket and
 * gives it an {@link EventsSession}. Holds what every session reads: the engine's published
 * counts and budget states (read from any thread, never waiting for the engine), the store's job
 * listings and the engine gateway for deletions.
 */
public final class EventsFeed {
  private static final Logger LOG = LoggerFactory.getLogger(EventsFeed.class);

  private final Vertx vertx;
  private final EngineGateway engine;
  private final WindowReads windows;
  private final Map<String, QueueCounts> queueCounts;
  private final Map<String, BudgetState> budgetStates;
  private final InstantSource clock;
  private final ServerMessages.Server server;
  private final Throughput throughput;

  /**
   * {@code queueCounts} and {@code budgetStates} are the engine's published maps;
   * {@code throughput} is sampled by its own timer.
   */
  public EventsFeed(Vertx vertx, EngineGateway engine, JobQueries queries,
      Map<String, QueueCounts> queueCounts, Map<String, BudgetState> budgetStates,
      InstantSource clock, String serverVersion, String apiVersion, Throughput throughput) {
    this.vertx = vertx;
    this.engine = engine;
    this.windows = new WindowReads(queries);
    this.queueCounts = queueCounts;
    this.budgetStates = budgetStates;
    this.clock = clock;
    this.server = new ServerMessages.Server(serverVersion, apiVersion, clock.millis());
    this.throughput = throughput;
  }

  public void register(Router router) {
    router.add(HttpMethod.GET, "/events", (ex, params) -> open(ex));
  }

  private void open(Exchange ex) {
    ex.query(Set.of());
    HttpServerRequest request = ex.request();
    if (!request.canUpgradeToWebSocket()) {
      request.response().putHeader("Upgrade", "websocket");
      ex.fail(new HttpError(426, "GET /events is a WebSocket: send Upgrade: websocket", null));
      return;
    }
    request.toWebSocket()
        .onSuccess(socket -> new EventsSession(this, socket).start())
        .onFailure(e -> LOG.debug("events handshake failed: {}", e.toString()));
  }

  Vertx vertx() {
    return vertx;
  }

  EngineGateway engine() {
    return engine;
  }

  WindowReads windows() {
    return windows;
  }

  Map<String, QueueCounts> queueCounts() {
    return queueCounts;
  }

  Map<String, BudgetState> budgetStates() {
    return budgetStates;
  }

  Throughput throughput() {
    return throughput;
  }

  ServerMessages.Server server() {
    return server;
  }

  long nowMs() {
    return clock.millis();
  }
}

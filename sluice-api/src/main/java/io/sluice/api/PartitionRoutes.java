package io.sluice.api;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.api.http.Exchange;
import io.sluice.api.http.PathSegments;
import io.sluice.api.http.Router;
import io.sluice.api.wire.BudgetWire;
import io.sluice.api.wire.Fields;
import io.sluice.engine.SluiceException;
import io.sluice.engine.budget.BudgetState;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;

/**
 * The partitions of a partitioned budget (X3): the ones in use, a page at a time by partition
 * value, one partition's state (a partition not in use reads as a fresh, full one), and pausing
 * or resuming one partition (X6). Partitions live only in the engine, so every answer is an
 * engine call.
 */
final class PartitionRoutes {
  private static final Set<String> NO_PARAMS = Set.of();
  private static final Set<String> PAGE_PARAMS = Set.of("from", "order", "limit", "sort");

  private final EngineGateway engine;
  private final InstantSource clock;

  PartitionRoutes(EngineGateway engine, InstantSource clock) {
    this.engine = engine;
    this.clock = clock;
  }

  void register(Router router) {
    router
        .add(HttpMethod.GET, "/budgets/{key}/partitions", (ex, p) -> list(ex, p.get(0)))
        .add(HttpMethod.GET, "/budgets/{key}/partitions/{partition}",
            (ex, p) -> get(ex, p.get(0), p.get(1)))
        .add(HttpMethod.POST, "/budgets/{key}/partitions/{partition}/pause",
            (ex, p) -> pause(ex, p.get(0), p.get(1)))
        .add(HttpMethod.POST, "/budgets/{key}/partitions/{partition}/resume",
            (ex, p) -> resume(ex, p.get(0), p.get(1)));
  }

  private void list(Exchange ex, String key) {
    MultiMap query = ex.query(PAGE_PARAMS);
    ex.responseFormat();
    String sort = query.get("sort");
    if (sort != null && !sort.isEmpty()) {
      busiest(ex, key, sort, query);
      return;
    }
    boolean descending = Pagination.descending(query.get("order"));
    int limit = Pagination.limit(query.get("limit"));
    String from = query.get("from");
    boolean hasFrom = from != null && !from.isEmpty();
    ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin()
        .partitions(key, hasFrom ? from : null, descending, limit + 1)), page -> {
          boolean more = page.size() > limit;
          List<BudgetState> shown = more ? page.subList(0, limit) : page;
          String base = "/budgets/" + PathSegments.encode(key) + "/partitions?";
          long asOfMs = clock.millis();
          ex.send(200, gen -> {
            writePartitions(gen, shown, asOfMs);
            Pagination.writePages(gen, base, hasFrom ? PathSegments.encode(from) : null,
                descending, "&limit=" + limit,
                shown.isEmpty() ? null : PathSegments.encode(shown.get(0).partition()),
                shown.isEmpty() ? null
                    : PathSegments.encode(shown.get(shown.size() - 1).partition()), more);
            gen.writeEndObject();
          });
        });
  }

  /**
   * {@code ?sort=waiting}: the partitions with the most waiting jobs, most first, one page of
   * {@code limit} (a scan of every partition, for a dashboard; no cursor to page on).
   */
  private void busiest(Exchange ex, String key, String sort, MultiMap query) {
    if (!sort.equals("waiting")) {
      throw new SluiceException.InvalidRequest(
          "invalid query parameters: sort must be \"waiting\"");
    }
    if (query.get("from") != null || query.get("order") != null) {
      throw new SluiceException.InvalidRequest(
          "invalid query parameters: sort=waiting takes no from or order");
    }
    int limit = Pagination.limit(query.get("limit"));
    ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin().busiestPartitions(key, limit)),
        busiest -> {
          long asOfMs = clock.millis();
          ex.send(200, gen -> {
            writePartitions(gen, busiest, asOfMs);
            Pagination.writePages(gen, "/budgets/" + PathSegments.encode(key)
                + "/partitions?sort=waiting&limit=" + limit, null, null);
            gen.writeEndObject();
          });
        });
  }

  /** Opens the answer and writes its {@code partitions}; the caller adds the pages and closes. */
  private static void writePartitions(JsonGenerator gen, List<BudgetState> states, long asOfMs)
      throws IOException {
    gen.writeStartObject();
    gen.writeArrayFieldStart("partitions");
    for (BudgetState state : states) {
      BudgetWire.writePartition(gen, state, asOfMs);
    }
    gen.writeEndArray();
  }

  private void get(Exchange ex, String key, String partition) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin().partition(key, partition, nowMs)),
        state -> send(ex, state));
  }

  private void pause(Exchange ex, String key, String partition) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.body(), body -> {
      BudgetWire.PauseRequest pause =
          BudgetWire.pauseRequest(new Fields(ex.requestFormat(), ""), body);
      ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin()
          .pausePartition(key, partition, pause.forMs(), pause.untilMs(), nowMs)),
          state -> send(ex, state));
    });
  }

  private void resume(Exchange ex, String key, String partition) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) ->
        eng.budgetAdmin().resumePartition(key, partition, nowMs)), state -> send(ex, state));
  }

  private void send(Exchange ex, BudgetState state) {
    long asOfMs = clock.millis();
    ex.send(200, gen -> BudgetWire.writePartition(gen, state, asOfMs));
  }
}

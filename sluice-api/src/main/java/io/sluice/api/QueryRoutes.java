package io.sluice.api;

import io.sluice.api.http.Exchange;
import io.sluice.api.http.Router;
import io.sluice.api.wire.FilterParser;
import io.sluice.api.wire.JobWriter;
import io.sluice.engine.SluiceException;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.api.wire.PatchParser;
import io.sluice.engine.job.JobPatch;
import io.sluice.engine.job.JobStatus;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The filtered job endpoints (API.md §8.9, §8.10, §8.15–§8.17): cursor-paginated reads and
 * counts run on Vert.x worker threads so that a long scan never holds up dispatch or requests;
 * bulk deletes and patches are applied by the engine, after a worker-thread scan when a jq
 * filter needs payloads; a large one is followed by a background compaction.
 */
final class QueryRoutes {
  private static final Set<String> LIST_PARAMS = with(FilterParser.FILTER_PARAMS,
      "order", "limit", "from");

  private final Vertx vertx;
  private final JobQueries queries;
  private final PayloadSelection selection;
  private final EngineGateway engine;
  private final InstantSource clock;
  private final Compactor compactor;

  QueryRoutes(Vertx vertx, JobQueries queries, PayloadSelection selection, EngineGateway engine,
      InstantSource clock, Compactor compactor) {
    this.vertx = vertx;
    this.queries = queries;
    this.selection = selection;
    this.engine = engine;
    this.clock = clock;
    this.compactor = compactor;
  }

  void register(Router router) {
    router
        .add(HttpMethod.GET, "/jobs", (ex, p) -> list(ex))
        .add(HttpMethod.GET, "/jobs/count", (ex, p) -> count(ex))
        .add(HttpMethod.DELETE, "/jobs", (ex, p) -> deleteAll(ex))
        .add(HttpMethod.PATCH, "/jobs", (ex, p) -> patchAll(ex))
        .add(HttpMethod.PATCH, "/jobs/{id}", (ex, p) -> patchOne(ex, p.get(0)));
  }

  private void patchOne(Exchange ex, String rawId) {
    ex.query(Set.of());
    ex.responseFormat();
    ex.respond(ex.body(), body -> {
      JobPatch patch = PatchParser.parse(ex.requestFormat(), body);
      JobId id = JobId.parseOrNull(rawId);
      ex.respond(engine.call((eng, nowMs) -> eng.patch(id, patch, nowMs)),
          job -> ex.send(200, gen -> JobWriter.writeJob(gen, job, null)));
    });
  }

  private void patchAll(Exchange ex) {
    MultiMap query = ex.query(FilterParser.FILTER_PARAMS);
    ex.responseFormat();
    FilterParser.Query filters = FilterParser.parse(query);
    if (filters.filter().statuses() != null) {
      for (JobStatus status : filters.filter().statuses()) {
        if (status.isTerminal()) {
          throw new SluiceException.Unprocessable(
              "cannot patch jobs in " + status.wireName() + " status");
        }
      }
    }
    ex.respond(ex.body(), body -> {
      JobPatch patch = PatchParser.parse(ex.requestFormat(), body);
      ex.respond(selection.ids(filters).compose(ids -> engine.call((eng, nowMs) ->
          eng.patchWhere(filters.filter(), ids, patch, nowMs))), patched -> {
            compactor.afterBulkChange("bulk patch", patched);
            ex.send(200, gen -> {
              gen.writeStartObject();
              gen.writeNumberField("patched", patched);
              gen.writeEndObject();
            });
          });
    });
  }

  private void deleteAll(Exchange ex) {
    MultiMap query = ex.query(FilterParser.FILTER_PARAMS);
    ex.responseFormat();
    FilterParser.Query filters = FilterParser.parse(query);
    ex.respond(selection.ids(filters).compose(ids -> engine.call((eng, nowMs) ->
        eng.deleteWhere(filters.filter(), ids, nowMs))), deleted -> {
          compactor.afterBulkChange("bulk delete", deleted);
          ex.send(200, gen -> {
            gen.writeStartObject();
            gen.writeNumberField("deleted", deleted);
            gen.writeEndObject();
          });
        });
  }

  private void list(Exchange ex) {
    MultiMap query = ex.query(LIST_PARAMS);
    ex.responseFormat();
    FilterParser.Query filters = FilterParser.parse(query);
    boolean descending = Pagination.descending(query.get("order"));
    int limit = Pagination.limit(query.get("limit"));
    String fromText = query.get("from");
    JobId from = null;
    if (fromText != null && !fromText.isEmpty()) {
      from = FilterParser.cursorId(fromText);
    }
    JobId cursor = from;
    ex.respond(vertx.executeBlocking(() -> queries.page(filters.filter(),
        filters.payloadFilter(), cursor, descending, limit, clock.millis()), false), page -> {
          String tail = "&limit=" + limit + filters.linkParams();
          List<JobSnapshot> jobs = page.jobs();
          ex.send(200, gen -> {
            gen.writeStartObject();
            gen.writeArrayFieldStart("jobs");
            for (JobSnapshot job : page.jobs()) {
              JobWriter.writeJob(gen, job, job.payload());
            }
            gen.writeEndArray();
            Pagination.writePages(gen, "/jobs?", cursor == null ? null : cursor.toString(),
                descending, tail, jobs.isEmpty() ? null : jobs.get(0).id().toString(),
                jobs.isEmpty() ? null : jobs.get(jobs.size() - 1).id().toString(), page.more());
            gen.writeEndObject();
          });
        });
  }

  private void count(Exchange ex) {
    MultiMap query = ex.query(FilterParser.FILTER_PARAMS);
    ex.responseFormat();
    FilterParser.Query filters = FilterParser.parse(query);
    ex.respond(vertx.executeBlocking(() -> queries.count(filters.filter(),
        filters.payloadFilter(), clock.millis()), false), count -> ex.send(200, gen -> {
          gen.writeStartObject();
          gen.writeNumberField("count", count);
          gen.writeEndObject();
        }));
  }

  private static Set<String> with(Set<String> base, String... more) {
    Set<String> all = new HashSet<>(base);
    all.addAll(Set.of(more));
    return Set.copyOf(all);
  }
}

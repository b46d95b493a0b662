package io.sluice.api;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.api.http.Exchange;
import io.sluice.api.http.Router;
import io.sluice.api.wire.BudgetWire;
import io.sluice.api.wire.Fields;
import io.sluice.api.wire.FilterParser;
import io.sluice.api.wire.Format;
import io.sluice.api.wire.JobWriter;
import io.sluice.engine.SluiceException;
import io.sluice.engine.budget.BindingChange;
import io.sluice.engine.budget.BulkRebindResult;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.query.JobFilter;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** The routes that change jobs' budget bindings (BUDGETS.md §8.7). */
final class BindingRoutes {
  private static final Set<String> NO_PARAMS = Set.of();
  private static final long U32_MAX = 0xFFFFFFFFL;

  private final EngineGateway engine;
  private final PayloadSelection selection;

  BindingRoutes(EngineGateway engine, PayloadSelection selection) {
    this.engine = engine;
    this.selection = selection;
  }

  void register(Router router) {
    router
        .add(HttpMethod.PUT, "/jobs/{id}/budgets", (ex, p) -> one(ex, p.get(0), true,
            body -> new BindingChange.ReplaceAll(BudgetWire.bindings(fields(ex),
                fields(ex).required(fields(ex).object(body, "the request"), "budgets")))))
        .add(HttpMethod.DELETE, "/jobs/{id}/budgets", (ex, p) -> one(ex, p.get(0), false,
            body -> new BindingChange.ReplaceAll(List.of())))
        .add(HttpMethod.POST, "/jobs/{id}/budgets/{key}", (ex, p) -> one(ex, p.get(0), true,
            body -> new BindingChange.Add(BudgetWire.binding(fields(ex), body, p.get(1)))))
        .add(HttpMethod.PUT, "/jobs/{id}/budgets/{key}", (ex, p) -> one(ex, p.get(0), true,
            body -> new BindingChange.Put(BudgetWire.binding(fields(ex), body, p.get(1)))))
        .add(HttpMethod.PATCH, "/jobs/{id}/budgets/{key}", (ex, p) -> one(ex, p.get(0), true,
            body -> new BindingChange.PatchCost(p.get(1), cost(ex, body))))
        .add(HttpMethod.DELETE, "/jobs/{id}/budgets/{key}", (ex, p) -> one(ex, p.get(0), false,
            body -> new BindingChange.Remove(p.get(1))))
        .add(HttpMethod.DELETE, "/jobs/budgets", (ex, p) -> bulk(ex, false,
            body -> new BindingChange.ReplaceAll(List.of())))
        .add(HttpMethod.POST, "/jobs/budgets/{key}", (ex, p) -> bulk(ex, true,
            body -> new BindingChange.Add(BudgetWire.binding(fields(ex), body, p.get(0)))))
        .add(HttpMethod.PUT, "/jobs/budgets/{key}", (ex, p) -> bulk(ex, true,
            body -> new BindingChange.Put(BudgetWire.binding(fields(ex), body, p.get(0)))))
        .add(HttpMethod.PATCH, "/jobs/budgets/{key}", (ex, p) -> bulk(ex, true,
            body -> new BindingChange.PatchCost(p.get(0), cost(ex, body))))
        .add(HttpMethod.DELETE, "/jobs/budgets/{key}", (ex, p) -> bulk(ex, false,
            body -> new BindingChange.Remove(p.get(0))));
  }

  private static Fields fields(Exchange ex) {
    return new Fields(ex.requestFormat() == null ? Format.JSON
        : ex.requestFormat(), "");
  }

  private static long cost(Exchange ex, JsonNode body) {
    Fields fields = fields(ex);
    fields.object(body, "the request");
    return fields.unsigned(body, "cost", U32_MAX);
  }

  private void one(Exchange ex, String rawId, boolean readsBody,
      Function<JsonNode, BindingChange> change) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    JobId id = JobId.parseOrNull(rawId);
    ex.respond(body(ex, readsBody), body -> {
      BindingChange parsed = change.apply(body);
      if (id == null) {
        throw new SluiceException.NotFound("job not found");
      }
      ex.respond(engine.call((eng, nowMs) -> eng.changeBindings(id, parsed, nowMs)),
          job -> ex.send(200, gen -> JobWriter.writeJob(gen, job, null)));
    });
  }

  private void bulk(Exchange ex, boolean readsBody, Function<JsonNode, BindingChange> change) {
    MultiMap query = ex.query(FilterParser.FILTER_PARAMS);
    ex.responseFormat();
    FilterParser.Query filters = FilterParser.parse(query);
    JobFilter filter = filters.filter();
    if (filter.statuses() != null) {
      for (JobStatus status : filter.statuses()) {
        if (status.isTerminal()) {
          throw new SluiceException.Unprocessable(
              "cannot change budgets of jobs in " + status.wireName() + " status");
        }
      }
    }
    ex.respond(body(ex, readsBody), body -> {
      BindingChange parsed = change.apply(body);
      ex.respond(selection.ids(filters).compose(ids -> engine.call((eng, nowMs) ->
          eng.changeBindingsWhere(filter, ids, parsed, nowMs))),
          result -> ex.send(200, gen -> writeBulk(gen, result)));
    });
  }

  private static Future<JsonNode> body(Exchange ex, boolean readsBody) {
    return readsBody
        ? ex.optionalBody()
        : Future.succeededFuture(Format.JSON.mapper().createObjectNode());
  }

  private static void writeBulk(JsonGenerator gen, BulkRebindResult result)
      throws IOException {
    gen.writeStartObject();
    gen.writeNumberField("changed", result.changed());
    gen.writeArrayFieldStart("blocked");
    for (String id : result.blocked()) {
      gen.writeString(id);
    }
    gen.writeEndArray();
    gen.writeEndObject();
  }
}

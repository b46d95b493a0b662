package io.sluice.api;

import io.sluice.api.http.Exchange;
import io.sluice.api.http.Router;
import io.sluice.api.wire.BudgetWire;
import io.sluice.api.wire.Fields;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.PolicyPatch;
import io.sluice.engine.budget.PolicySpec;
import io.vertx.core.http.HttpMethod;
import java.util.Set;

/** The budget resource endpoints of BUDGETS.md §8.1–§8.6. */
final class BudgetRoutes {
  private static final Set<String> NO_PARAMS = Set.of();

  private final EngineGateway engine;

  BudgetRoutes(EngineGateway engine) {
    this.engine = engine;
  }

  void register(Router router) {
    router
        .add(HttpMethod.GET, "/budgets", (ex, p) -> list(ex))
        .add(HttpMethod.GET, "/budgets/{key}", (ex, p) -> get(ex, p.get(0)))
        .add(HttpMethod.POST, "/budgets/{key}", (ex, p) -> create(ex, p.get(0)))
        .add(HttpMethod.PUT, "/budgets/{key}", (ex, p) -> put(ex, p.get(0)))
        .add(HttpMethod.PATCH, "/budgets/{key}", (ex, p) -> patch(ex, p.get(0)))
        .add(HttpMethod.DELETE, "/budgets/{key}", (ex, p) -> delete(ex, p.get(0)));
  }

  private void list(Exchange ex) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin().list()), budgets ->
        ex.send(200, gen -> {
          gen.writeStartObject();
          gen.writeArrayFieldStart("budgets");
          for (BudgetView budget : budgets) {
            BudgetWire.writeBudget(gen, budget);
          }
          gen.writeEndArray();
          gen.writeEndObject();
        }));
  }

  private void get(Exchange ex, String key) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin().get(key)),
        budget -> ex.send(200, gen -> BudgetWire.writeBudget(gen, budget)));
  }

  private void create(Exchange ex, String key) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.body(), body -> {
      PolicySpec spec = BudgetWire.policySpec(new Fields(ex.requestFormat(), ""), body);
      ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin().create(key, spec, nowMs)),
          budget -> ex.send(201, gen -> BudgetWire.writeBudget(gen, budget)));
    });
  }

  private void put(Exchange ex, String key) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.body(), body -> {
      PolicySpec spec = BudgetWire.policySpec(new Fields(ex.requestFormat(), ""), body);
      ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin().put(key, spec, nowMs)),
          budget -> ex.send(200, gen -> BudgetWire.writeBudget(gen, budget)));
    });
  }

  private void patch(Exchange ex, String key) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.body(), body -> {
      PolicyPatch patch = BudgetWire.policyPatch(new Fields(ex.requestFormat(), ""), body);
      ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin().patch(key, patch, nowMs)),
          budget -> ex.send(200, gen -> BudgetWire.writeBudget(gen, budget)));
    });
  }

  private void delete(Exchange ex, String key) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> {
      eng.budgetAdmin().delete(key);
      return null;
    }), done -> ex.noContent());
  }
}

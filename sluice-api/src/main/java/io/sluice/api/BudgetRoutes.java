package io.sluice.api;

import io.sluice.api.http.Exchange;
import io.sluice.api.http.Router;
import io.sluice.api.wire.BudgetWire;
import io.sluice.api.wire.Fields;
import io.sluice.engine.Names;
import io.sluice.engine.SluiceException;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.PolicyPatch;
import io.sluice.engine.budget.PolicySpec;
import io.vertx.core.http.HttpMethod;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The budget resource endpoints of BUDGETS.md §8.1–§8.6, and their live state (X1): with
 * {@code ?state=true} a read is answered from the state the engine last published, so it never
 * waits behind an engine turn.
 */
final class BudgetRoutes {
  private static final Set<String> NO_PARAMS = Set.of();
  private static final Set<String> STATE_PARAM = Set.of("state");

  private final EngineGateway engine;
  private final Map<String, BudgetState> states;
  private final InstantSource clock;

  BudgetRoutes(EngineGateway engine, Map<String, BudgetState> states, InstantSource clock) {
    this.engine = engine;
    this.states = states;
    this.clock = clock;
  }

  void register(Router router) {
    router
        .add(HttpMethod.GET, "/budgets", (ex, p) -> list(ex))
        .add(HttpMethod.GET, "/budgets/{key}", (ex, p) -> get(ex, p.get(0)))
        .add(HttpMethod.POST, "/budgets/{key}", (ex, p) -> create(ex, p.get(0)))
        .add(HttpMethod.PUT, "/budgets/{key}", (ex, p) -> put(ex, p.get(0)))
        .add(HttpMethod.PATCH, "/budgets/{key}", (ex, p) -> patch(ex, p.get(0)))
        .add(HttpMethod.DELETE, "/budgets/{key}", (ex, p) -> delete(ex, p.get(0)))
        .add(HttpMethod.POST, "/budgets/{key}/pause", (ex, p) -> pause(ex, p.get(0)))
        .add(HttpMethod.POST, "/budgets/{key}/resume", (ex, p) -> resume(ex, p.get(0)));
  }

  private void list(Exchange ex) {
    boolean withState = withState(ex);
    ex.responseFormat();
    if (withState) {
      long asOfMs = clock.millis();
      List<BudgetState> all = new ArrayList<>(states.values());
      all.sort(Comparator.comparing(state -> state.view().key(), Names.BYTE_ORDER));
      ex.send(200, gen -> {
        gen.writeStartObject();
        gen.writeArrayFieldStart("budgets");
        for (BudgetState state : all) {
          BudgetWire.writeBudget(gen, state, asOfMs);
        }
        gen.writeEndArray();
        gen.writeEndObject();
      });
      return;
    }
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
    boolean withState = withState(ex);
    ex.responseFormat();
    if (withState) {
      BudgetState state = states.get(key);
      if (state == null) {
        throw new SluiceException.NotFound("budget '" + key + "' not found");
      }
      long asOfMs = clock.millis();
      ex.send(200, gen -> BudgetWire.writeBudget(gen, state, asOfMs));
      return;
    }
    ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin().get(key)),
        budget -> ex.send(200, gen -> BudgetWire.writeBudget(gen, budget)));
  }

  /** {@code ?state=true} adds the live state (X1); absent or {@code false}, the plain budget. */
  private static boolean withState(Exchange ex) {
    String value = ex.query(STATE_PARAM).get("state");
    if (value == null || value.equals("false")) {
      return false;
    }
    if (value.equals("true")) {
      return true;
    }
    throw new SluiceException.InvalidRequest(
        "invalid query parameters: state must be \"true\" or \"false\"");
  }

  /** X6: pauses the budget; answers it with its state. */
  private void pause(Exchange ex, String key) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.body(), body -> {
      BudgetWire.PauseRequest pause =
          BudgetWire.pauseRequest(new Fields(ex.requestFormat(), ""), body);
      ex.respond(engine.call((eng, nowMs) ->
          eng.budgetAdmin().pause(key, pause.forMs(), pause.untilMs(), nowMs)),
          budget -> sendWithState(ex, key));
    });
  }

  /** X6: ends the budget's pause; answers it with its state. */
  private void resume(Exchange ex, String key) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> eng.budgetAdmin().resume(key, nowMs)),
        budget -> sendWithState(ex, key));
  }

  /** The budget with the state the engine published by the end of the change's turn. */
  private void sendWithState(Exchange ex, String key) {
    BudgetState state = states.get(key);
    long asOfMs = clock.millis();
    ex.send(200, gen -> BudgetWire.writeBudget(gen, state, asOfMs));
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

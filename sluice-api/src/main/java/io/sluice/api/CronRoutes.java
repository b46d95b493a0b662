package io.sluice.api;

import io.sluice.api.http.Exchange;
import io.sluice.api.http.Router;
import io.sluice.api.wire.CronWire;
import io.sluice.engine.cron.EntrySpec;
import io.sluice.engine.cron.GroupPatch;
import io.sluice.engine.cron.GroupSpec;
import io.vertx.core.http.HttpMethod;
import java.util.Set;

/** The cron endpoints of API.md §9.2. */
final class CronRoutes {
  private static final Set<String> NO_PARAMS = Set.of();

  private final EngineGateway engine;

  CronRoutes(EngineGateway engine) {
    this.engine = engine;
  }

  void register(Router router) {
    router
        .add(HttpMethod.GET, "/crons", (ex, p) -> list(ex))
        .add(HttpMethod.DELETE, "/crons", (ex, p) -> deleteAll(ex))
        .add(HttpMethod.GET, "/crons/{group}", (ex, p) -> getGroup(ex, p.get(0)))
        .add(HttpMethod.PUT, "/crons/{group}", (ex, p) -> putGroup(ex, p.get(0)))
        .add(HttpMethod.PATCH, "/crons/{group}", (ex, p) -> patchGroup(ex, p.get(0)))
        .add(HttpMethod.DELETE, "/crons/{group}", (ex, p) -> deleteGroup(ex, p.get(0)))
        .add(HttpMethod.POST, "/crons/{group}/entries", (ex, p) -> addEntry(ex, p.get(0)))
        .add(HttpMethod.GET, "/crons/{group}/entries/{entry}",
            (ex, p) -> getEntry(ex, p.get(0), p.get(1)))
        .add(HttpMethod.PUT, "/crons/{group}/entries/{entry}",
            (ex, p) -> putEntry(ex, p.get(0), p.get(1)))
        .add(HttpMethod.PATCH, "/crons/{group}/entries/{entry}",
            (ex, p) -> patchEntry(ex, p.get(0), p.get(1)))
        .add(HttpMethod.DELETE, "/crons/{group}/entries/{entry}",
            (ex, p) -> deleteEntry(ex, p.get(0), p.get(1)));
  }

  // ---- groups --------------------------------------------------------------------------------

  private void list(Exchange ex) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> eng.crons().listGroupNames()),
        names -> ex.sendList(200, "crons", names));
  }

  private void deleteAll(Exchange ex) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> eng.crons().deleteAll()), deleted ->
        ex.send(200, gen -> {
          gen.writeStartObject();
          gen.writeNumberField("deleted", deleted);
          gen.writeEndObject();
        }));
  }

  private void getGroup(Exchange ex, String group) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> eng.crons().getGroup(group)),
        view -> ex.send(200, gen -> CronWire.writeGroup(gen, view)));
  }

  private void putGroup(Exchange ex, String group) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    CronWire.checkGroupName(group);
    ex.respond(ex.body(), body -> {
      GroupSpec spec = CronWire.groupSpec(ex.requestFormat(), body);
      ex.respond(engine.call((eng, nowMs) -> eng.crons().putGroup(group, spec, nowMs)),
          view -> ex.send(200, gen -> CronWire.writeGroup(gen, view)));
    });
  }

  private void patchGroup(Exchange ex, String group) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.optionalBody(), body -> {
      GroupPatch patch = CronWire.groupPatch(ex.requestFormat(), body);
      ex.respond(engine.call((eng, nowMs) -> eng.crons().patchGroup(group, patch, nowMs)),
          view -> ex.send(200, gen -> CronWire.writeGroup(gen, view)));
    });
  }

  private void deleteGroup(Exchange ex, String group) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> {
      eng.crons().deleteGroup(group);
      return null;
    }), done -> ex.noContent());
  }

  // ---- entries -------------------------------------------------------------------------------

  private void addEntry(Exchange ex, String group) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    CronWire.checkGroupName(group);
    ex.respond(ex.body(), body -> {
      EntrySpec spec = CronWire.entrySpec(ex.requestFormat(), body, null);
      ex.respond(engine.call((eng, nowMs) -> eng.crons().addEntry(group, spec, nowMs)),
          view -> ex.send(201, gen -> CronWire.writeEntry(gen, view)));
    });
  }

  private void getEntry(Exchange ex, String group, String entry) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> eng.crons().getEntry(group, entry)),
        view -> ex.send(200, gen -> CronWire.writeEntry(gen, view)));
  }

  private void putEntry(Exchange ex, String group, String entry) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    CronWire.checkGroupName(group);
    ex.respond(ex.body(), body -> {
      EntrySpec spec = CronWire.entrySpec(ex.requestFormat(), body, entry);
      ex.respond(engine.call((eng, nowMs) -> eng.crons().putEntry(group, spec, nowMs)),
          view -> ex.send(200, gen -> CronWire.writeEntry(gen, view)));
    });
  }

  private void patchEntry(Exchange ex, String group, String entry) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(ex.body(), body -> {
      boolean paused = CronWire.entryPaused(ex.requestFormat(), body);
      ex.respond(engine.call((eng, nowMs) -> eng.crons().patchEntry(group, entry, paused, nowMs)),
          view -> ex.send(200, gen -> CronWire.writeEntry(gen, view)));
    });
  }

  private void deleteEntry(Exchange ex, String group, String entry) {
    ex.query(NO_PARAMS);
    ex.responseFormat();
    ex.respond(engine.call((eng, nowMs) -> {
      eng.crons().deleteEntry(group, entry);
      return null;
    }), done -> ex.noContent());
  }
}

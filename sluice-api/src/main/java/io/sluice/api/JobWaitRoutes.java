package io.sluice.api;

import com.fasterxml.jackson.core.JsonGenerator;
import io.sluice.api.http.Exchange;
import io.sluice.api.http.Router;
import io.sluice.api.wire.BudgetWire;
import io.sluice.engine.JobWait;
import io.sluice.engine.job.JobId;
import io.vertx.core.http.HttpMethod;
import java.io.IOException;
import java.util.Set;

/** {@code GET /jobs/{id}/wait}: why the job is not running yet, and when it could (X2). */
final class JobWaitRoutes {
  private final EngineGateway engine;

  JobWaitRoutes(EngineGateway engine) {
    this.engine = engine;
  }

  void register(Router router) {
    router.add(HttpMethod.GET, "/jobs/{id}/wait", (ex, p) -> explain(ex, p.get(0)));
  }

  private void explain(Exchange ex, String rawId) {
    ex.query(Set.of());
    ex.responseFormat();
    JobId id = JobId.parseOrNull(rawId);
    ex.respond(engine.call((eng, nowMs) -> eng.explainWait(id, nowMs)),
        wait -> ex.send(200, gen -> write(gen, wait)));
  }

  static void write(JsonGenerator gen, JobWait wait) throws IOException {
    gen.writeStartObject();
    gen.writeStringField("id", wait.job().id().toString());
    gen.writeStringField("status", wait.job().status().wireName());
    gen.writeNumberField("as_of", wait.asOfMs());
    if (wait.waitingFor() == null) {
      gen.writeNullField("waiting_for");
    } else {
      gen.writeStringField("waiting_for", wait.waitingFor().wireName());
    }
    if (wait.waitingFor() == JobWait.WaitingFor.READY_AT) {
      gen.writeNumberField("ready_at", wait.job().readyAtMs());
    }
    gen.writeArrayFieldStart("budgets");
    for (JobWait.BudgetWait part : wait.budgets()) {
      gen.writeStartObject();
      gen.writeStringField("key", part.key());
      if (part.partition() != null) {
        gen.writeStringField("partition", part.partition());
      }
      gen.writeNumberField("cost", part.cost());
      gen.writeBooleanField("blocking", part.blocking());
      if (part.reason() == null) {
        gen.writeNullField("reason");
      } else {
        gen.writeStringField("reason", part.reason().wireName());
      }
      gen.writeNumberField("tokens", part.tokens());
      BudgetWire.writeJobsAndCost(gen, "ahead", part.aheadJobs(), part.aheadCost());
      BudgetWire.writeNullableNumber(gen, "available_at", part.availableAtMs());
      gen.writeEndObject();
    }
    gen.writeEndArray();
    BudgetWire.writeNullableNumber(gen, "estimated_dispatch_at", wait.estimatedDispatchAtMs());
    gen.writeEndObject();
  }
}

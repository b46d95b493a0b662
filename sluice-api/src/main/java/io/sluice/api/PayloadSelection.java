package io.sluice.api;

import io.sluice.api.wire.FilterParser;
import io.sluice.engine.job.JobId;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.InstantSource;
import java.util.Set;

/**
 * The first step of a bulk change filtered by jq: payloads are not in the engine's memory and jq
 * must not run on the engine thread, so the ids whose payloads match are found by a store scan on
 * a worker thread; the engine then applies the other filters again, live, to those ids.
 */
final class PayloadSelection {
  private final Vertx vertx;
  private final JobQueries queries;
  private final InstantSource clock;

  PayloadSelection(Vertx vertx, JobQueries queries, InstantSource clock) {
    this.vertx = vertx;
    this.queries = queries;
    this.clock = clock;
  }

  /** The ids whose payloads match the jq filter; null when there is none (the engine selects). */
  Future<Set<JobId>> ids(FilterParser.Query filters) {
    if (filters.payloadFilter() == null) {
      return Future.succeededFuture(null);
    }
    return vertx.executeBlocking(() -> queries.ids(filters.filter(), filters.payloadFilter(),
        clock.millis()), false);
  }
}

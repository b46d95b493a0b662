package io.sluice.api.metrics;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.api.http.Exchange;
import io.sluice.api.http.Router;
import io.sluice.api.wire.BufferOutputStream;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import java.util.Set;

/**
 * {@code GET /metrics} (X7): the registry in the Prometheus text format, or in OpenMetrics when
 * the {@code Accept} header asks for it, written by the client library's own writers. The scrape
 * runs on a worker thread: with thousands of budgets it takes milliseconds, which an event loop
 * shared with take streams and acks must not spend.
 */
final class MetricsEndpoint {
  private static final Set<String> NO_PARAMS = Set.of();

  private final Vertx vertx;
  private final PrometheusRegistry registry;
  private final ExpositionFormatWriter prometheusText;
  private final ExpositionFormatWriter openMetrics;
  /** The last scrape's size, so the next one's buffer is not grown and copied. */
  private volatile int lastBytes = 64 * 1024;

  MetricsEndpoint(Vertx vertx, PrometheusRegistry registry) {
    this.vertx = vertx;
    this.registry = registry;
    ExpositionFormats formats = ExpositionFormats.init();
    this.prometheusText = formats.getPrometheusTextFormatWriter();
    this.openMetrics = formats.getOpenMetricsTextFormatWriter();
  }

  void register(Router router) {
    router.add(HttpMethod.GET, "/metrics", (ex, p) -> scrape(ex));
  }

  private void scrape(Exchange ex) {
    ex.query(NO_PARAMS);
    String accept = ex.request().getHeader("Accept");
    // Protocol buffers need a module the server does not ship; Prometheus asks for text too.
    ExpositionFormatWriter writer = openMetrics.accepts(accept) ? openMetrics : prometheusText;
    EscapingScheme escaping = EscapingScheme.fromAcceptHeader(accept);
    ex.respond(vertx.executeBlocking(() -> render(writer, escaping), false), body -> {
      HttpServerResponse response = ex.request().response();
      if (!response.ended() && !response.closed()) {
        response.putHeader("Content-Type", writer.getContentType()).end(body);
      }
    });
  }

  private Buffer render(ExpositionFormatWriter writer, EscapingScheme escaping)
      throws java.io.IOException {
    BufferOutputStream out = new BufferOutputStream(Buffer.buffer(lastBytes + lastBytes / 8));
    writer.write(out, registry.scrape(), escaping);
    lastBytes = out.buffer().length();
    return out.buffer();
  }
}

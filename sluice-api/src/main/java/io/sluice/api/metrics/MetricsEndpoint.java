package io.sluice.api.metrics;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.api.http.Exchange;
import io.sluice.api.http.Router;
import io.sluice.api.wire.BufferOutputStream;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

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
  /** What each writer writes after the last family: nothing in text, {@code # EOF} in OpenMetrics. */
  private final Map<ExpositionFormatWriter, byte[]> trailers;
  /** Families rendered apart from the registry's and appended to them, or null for none yet. */
  private final Supplier<CachedRendering> apart;
  /** The last scrape's size, so the next one's buffer is not grown and copied. */
  private volatile int lastBytes = 64 * 1024;

  MetricsEndpoint(Vertx vertx, PrometheusRegistry registry, Supplier<CachedRendering> apart) {
    this.vertx = vertx;
    this.registry = registry;
    this.apart = apart;
    ExpositionFormats formats = ExpositionFormats.init();
    this.prometheusText = formats.getPrometheusTextFormatWriter();
    this.openMetrics = formats.getOpenMetricsTextFormatWriter();
    this.trailers = Map.of(prometheusText, rendering(prometheusText, MetricSnapshots.of()),
        openMetrics, rendering(openMetrics, MetricSnapshots.of()));
  }

  private static byte[] rendering(ExpositionFormatWriter writer, MetricSnapshots snapshots) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      writer.write(out, snapshots, EscapingScheme.DEFAULT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
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

  /**
   * The registry's families, then the families rendered apart, then the writer's trailer: both
   * renderings end with that trailer, which goes once, after the last family.
   */
  private Buffer render(ExpositionFormatWriter writer, EscapingScheme escaping)
      throws IOException {
    BufferOutputStream out = new BufferOutputStream(Buffer.buffer(lastBytes + lastBytes / 8));
    writer.write(out, registry.scrape(), escaping);
    Buffer body = out.buffer();
    CachedRendering familiesApart = apart.get();
    if (familiesApart != null) {
      byte[] trailer = trailers.get(writer);
      byte[] families = familiesApart.render(writer, escaping);
      Buffer registryTrailer = body.getBuffer(body.length() - trailer.length, body.length());
      if (!registryTrailer.equals(Buffer.buffer(trailer))
          || !Arrays.equals(families, families.length - trailer.length, families.length,
              trailer, 0, trailer.length)) {
        throw new IllegalStateException("a rendering does not end with the writer's trailer");
      }
      Buffer joined = Buffer.buffer(body.length() + families.length);
      joined.appendBuffer(body, 0, body.length() - trailer.length)
          .appendBytes(families, 0, families.length - trailer.length)
          .appendBytes(trailer);
      body = joined;
    }
    lastBytes = body.length();
    return body;
  }
}

package io.sluice.api.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.api.http.Exchange;
import io.vertx.core.http.HttpServerResponse;

/**
 * Counts answered requests by route pattern and status code ({@code sluice_http_requests_total}).
 * The route is the pattern the router matched ({@code /jobs/{id}}), never the raw path, so the
 * number of series stays bounded whatever clients send.
 */
public final class HttpRequestMetrics {
  /** The route of a request whose path no route matches. */
  static final String UNMATCHED = "unmatched";

  private final Counter requests;

  HttpRequestMetrics(PrometheusRegistry registry) {
    requests = Counter.builder()
        .name("sluice_http_requests_total")
        .help("HTTP requests answered, by route pattern and status code")
        .labelNames("route", "code")
        .withoutExemplars()
        .register(registry);
  }

  /**
   * Counts the exchange once its response headers go out, when its status is final; a take
   * stream counts when it opens. Call before routing it. Takes the response's headers-end
   * handler, which nothing else in the server uses.
   */
  public void count(Exchange exchange) {
    HttpServerResponse response = exchange.request().response();
    response.headersEndHandler(ignored -> {
      String route = exchange.route();
      requests.labelValues(route == null ? UNMATCHED : route,
          Integer.toString(response.getStatusCode())).inc();
    });
  }
}

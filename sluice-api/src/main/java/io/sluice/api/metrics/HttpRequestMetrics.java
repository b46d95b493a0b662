package io.sluice.api.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.sluice.api.http.Exchange;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntConsumer;

/**
 * Counts answered requests by route pattern and status code ({@code sluice_http_requests_total}).
 * The route is the pattern the router matched ({@code /jobs/{id}}), never the raw path, so the
 * number of series stays bounded whatever clients send.
 */
public final class HttpRequestMetrics {
  /** The route of a request whose path no route matches. */
  static final String UNMATCHED = "unmatched";

  /** Status codes are three digits: 100 to 599. */
  private static final int CODES = 600;

  private final Counter requests;
  /**
   * Each route's data points by status code, so that counting a response hashes one string
   * instead of the library's list of label values (the router hands out the same few strings).
   */
  private final ConcurrentHashMap<String, AtomicReferenceArray<CounterDataPoint>> byRoute =
      new ConcurrentHashMap<>();

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
   * stream counts when it opens. Call before routing it.
   */
  public void count(Exchange exchange) {
    exchange.whenHeadSent(new CountOnHead(exchange));
  }

  /**
   * Counts an exchange by its route and status. A class rather than a lambda, as it is made for
   * every request: on C1 a capturing lambda is made through method handles it does not inline.
   */
  private final class CountOnHead implements IntConsumer {
    private final Exchange exchange;

    CountOnHead(Exchange exchange) {
      this.exchange = exchange;
    }

    @Override
    public void accept(int status) {
      String route = exchange.route();
      dataPoint(route == null ? UNMATCHED : route, status).inc();
    }
  }

  private CounterDataPoint dataPoint(String route, int code) {
    if (code < 0 || code >= CODES) {
      return requests.labelValues(route, Integer.toString(code));
    }
    AtomicReferenceArray<CounterDataPoint> byCode =
        byRoute.computeIfAbsent(route, r -> new AtomicReferenceArray<>(CODES));
    CounterDataPoint point = byCode.get(code);
    if (point == null) {
      // Another thread may do the same meanwhile; the library gives both the same data point.
      point = requests.labelValues(route, Integer.toString(code));
      byCode.set(code, point);
    }
    return point;
  }
}

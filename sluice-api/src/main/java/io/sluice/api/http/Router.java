package io.sluice.api.http;

import io.vertx.core.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;

/**
 * Matches (method, decoded path segments) to handlers. Routes are tried in the order added, so
 * literal routes such as {@code /jobs/bulk} are added before {@code /jobs/{id}}. A path that some
 * route matches under another method is a 405; no match at all is a 404.
 */
public final class Router {
  /** Handles one request; {@code params} are the values of the route's {@code {…}} segments. */
  @FunctionalInterface
  public interface Handler {
    void handle(Exchange exchange, List<String> params);
  }

  private record Route(HttpMethod method, String[] pattern, Handler handler) {
    List<String> match(List<String> segments) {
      if (segments.size() != pattern.length) {
        return null;
      }
      List<String> params = new ArrayList<>(2);
      for (int i = 0; i < pattern.length; i++) {
        if (pattern[i].startsWith("{")) {
          params.add(segments.get(i));
        } else if (!pattern[i].equals(segments.get(i))) {
          return null;
        }
      }
      return params;
    }
  }

  private final List<Route> routes = new ArrayList<>();

  public Router add(HttpMethod method, String path, Handler handler) {
    routes.add(new Route(method, path.substring(1).split("/"), handler));
    return this;
  }

  public void route(Exchange exchange) {
    List<String> segments = PathSegments.parse(exchange.request().path());
    if (segments == null) {
      exchange.fail(HttpError.notFound());
      return;
    }
    // The most literal pattern that matches owns the path: GET /jobs/bulk is a 405, not a
    // lookup of a job whose id is "bulk".
    int fewestParams = Integer.MAX_VALUE;
    for (Route route : routes) {
      List<String> params = route.match(segments);
      if (params != null) {
        fewestParams = Math.min(fewestParams, params.size());
      }
    }
    for (Route route : routes) {
      List<String> params = route.match(segments);
      if (params != null && params.size() == fewestParams
          && route.method().equals(exchange.request().method())) {
        try {
          route.handler().handle(exchange, params);
        } catch (RuntimeException e) {
          exchange.fail(e);
        }
        return;
      }
    }
    boolean pathKnown = fewestParams != Integer.MAX_VALUE;
    exchange.fail(pathKnown ? HttpError.methodNotAllowed() : HttpError.notFound());
  }
}

package io.sluice.api.http;

import io.vertx.core.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;

/**
 * Matches (method, decoded path segments) to handlers. Routes are tried in the order added, so
 * literal routes such as {@code /jobs/bulk} are added before {@code /jobs/{id}}. A path that some
 * route matches under another method is a 405; no match at all is a 404. A segment that cannot be
 * decoded, in a path that some route matches, is a 400 naming the route's parameter there.
 * Before answering, the router tells the exchange which route's pattern took the request
 * ({@link Exchange#route}), so metrics can name the route rather than the path.
 */
public final class Router {
  /** Handles one request; {@code params} are the values of the route's {@code {…}} segments. */
  @FunctionalInterface
  public interface Handler {
    void handle(Exchange exchange, List<String> params);
  }

  private record Route(HttpMethod method, String path, String[] pattern, Handler handler) {
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

  private final List<Route> routes;
  /** Put before every path added through this router; empty for a listener's own router. */
  private final String prefix;

  public Router() {
    this(new ArrayList<>(), "");
  }

  private Router(List<Route> routes, String prefix) {
    this.routes = routes;
    this.prefix = prefix;
  }

  public Router add(HttpMethod method, String path, Handler handler) {
    String full = prefix + path;
    routes.add(new Route(method, full, full.substring(1).split("/"), handler));
    return this;
  }

  /**
   * A view of this router that adds its routes under {@code prefix} (such as {@code /api}), so
   * one listener can serve another's handlers beside its own; routing is this router's.
   */
  public Router under(String prefix) {
    return new Router(routes, this.prefix + prefix);
  }

  public void route(Exchange exchange) {
    PathSegments.Decoded path = PathSegments.parse(exchange.request().path());
    if (path == null) {
      exchange.fail(HttpError.notFound());
      return;
    }
    List<String> segments = path.segments();
    // The most literal pattern that matches owns the path: GET /jobs/bulk is a 405, not a
    // lookup of a job whose id is "bulk". A segment that cannot be decoded (null) matches
    // parameters only.
    int fewestParams = Integer.MAX_VALUE;
    Route owner = null;
    for (Route route : routes) {
      List<String> params = route.match(segments);
      if (params != null && params.size() < fewestParams) {
        fewestParams = params.size();
        owner = route;
      }
    }
    if (owner != null) {
      exchange.routedTo(owner.path());
    }
    if (owner != null && path.malformed() >= 0) {
      String param = owner.pattern()[path.malformed()];
      exchange.fail(new HttpError(400, "invalid path: " + path.problem() + " in `"
          + param.substring(1, param.length() - 1) + "`", null));
      return;
    }
    for (Route route : routes) {
      List<String> params = route.match(segments);
      if (params != null && params.size() == fewestParams
          && route.method().equals(exchange.request().method())) {
        exchange.routedTo(route.path());
        try {
          route.handler().handle(exchange, params);
        } catch (RuntimeException e) {
          exchange.fail(e);
        }
        return;
      }
    }
    exchange.fail(owner != null ? HttpError.methodNotAllowed() : HttpError.notFound());
  }
}

package io.sluice.api.http;

import io.vertx.core.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;

/**
 * Matches (method, decoded path segments) to handlers. The most literal pattern that matches a
 * path owns it: literal routes such as {@code /jobs/bulk} win over {@code /jobs/{id}} whatever
 * the order they were added in, and among equally literal ones the first added wins. A path that
 * some route matches under another method is a 405; no match at all is a 404. A segment that
 * cannot be decoded, in a path that some route matches, is a 400 naming the route's parameter
 * there. Before answering, the router tells the exchange which route's pattern took the request
 * ({@link Exchange#route}), so metrics can name the route rather than the path.
 *
 * <p>Every request is routed, so a lookup looks only at the routes with the path's number of
 * segments, and allocates only its answer and the chosen route's parameter list.
 */
public final class Router {
  /** Handles one request; {@code params} are the values of the route's {@code {…}} segments. */
  @FunctionalInterface
  public interface Handler {
    void handle(Exchange exchange, List<String> params);
  }

  /** A route; {@code literals[i]} is null where the pattern has a parameter. */
  record Route(HttpMethod method, String path, String[] literals, int params, Handler handler,
      boolean direct) {
    static Route of(HttpMethod method, String path, Handler handler, boolean direct) {
      String[] literals = path.substring(1).split("/");
      int params = 0;
      for (int i = 0; i < literals.length; i++) {
        if (literals[i].startsWith("{")) {
          literals[i] = null;
          params++;
        }
      }
      return new Route(method, path, literals, params, handler, direct);
    }

    /** Whether the segments fit the pattern; an undecodable (null) segment fits parameters only. */
    boolean matches(List<String> segments) {
      for (int i = 0; i < literals.length; i++) {
        if (literals[i] != null && !literals[i].equals(segments.get(i))) {
          return false;
        }
      }
      return true;
    }

    List<String> params(List<String> segments) {
      List<String> values = new ArrayList<>(params);
      for (int i = 0; i < literals.length; i++) {
        if (literals[i] == null) {
          values.add(segments.get(i));
        }
      }
      return values;
    }

    /** The name of the parameter at segment {@code index}, without its braces. */
    String paramName(int index) {
      String pattern = path.substring(1).split("/")[index];
      return pattern.substring(1, pattern.length() - 1);
    }
  }

  /**
   * The outcome of a lookup: {@code owner} is the most literal route matching the path under any
   * method (null: a 404), {@code handler} the most literal one under the request's method (null
   * with an owner: a 405).
   */
  record Match(Route owner, Route handler) {}

  /** A route added with {@link #addDirect} that takes a request, with its parameter values. */
  record Routed(Route route, List<String> params) {}

  /** Routes by their number of segments, each list in the order added; shared with views. */
  private final List<List<Route>> bySegments;
  /** Put before every path added through this router; empty for a listener's own router. */
  private final String prefix;

  public Router() {
    this(new ArrayList<>(), "");
  }

  private Router(List<List<Route>> bySegments, String prefix) {
    this.bySegments = bySegments;
    this.prefix = prefix;
  }

  public Router add(HttpMethod method, String path, Handler handler) {
    return add(method, path, handler, false);
  }

  /**
   * Adds a route whose handler uses only the exchange's own methods, never
   * {@link Exchange#request()}: a connection's guard may then read such a request and write its
   * answer itself, without Vert.x ({@link DirectAnswers}).
   */
  public Router addDirect(HttpMethod method, String path, Handler handler) {
    return add(method, path, handler, true);
  }

  private Router add(HttpMethod method, String path, Handler handler, boolean direct) {
    Route route = Route.of(method, prefix + path, handler, direct);
    int segments = route.literals().length;
    while (bySegments.size() <= segments) {
      bySegments.add(new ArrayList<>());
    }
    bySegments.get(segments).add(route);
    return this;
  }

  /**
   * A view of this router that adds its routes under {@code prefix} (such as {@code /api}), so
   * one listener can serve another's handlers beside its own; routing is this router's.
   */
  public Router under(String prefix) {
    return new Router(bySegments, this.prefix + prefix);
  }

  /** The routes that would take a request with this method and these segments. */
  Match match(HttpMethod method, List<String> segments) {
    if (segments.size() >= bySegments.size()) {
      return new Match(null, null);
    }
    Route owner = null;
    Route handler = null;
    for (Route route : bySegments.get(segments.size())) {
      boolean cannotWin = owner != null && (route.params() > owner.params()
          || route.params() == owner.params() && handler != null);
      if (cannotWin || !route.matches(segments)) {
        continue;
      }
      if (owner == null || route.params() < owner.params()) {
        owner = route;
        handler = null;
      }
      if (handler == null && route.method().equals(method)) {
        handler = route;
      }
    }
    return new Match(owner, handler);
  }

  /**
   * The route added with {@link #addDirect} that would take a request with this method and (raw)
   * path, its path decoding cleanly; null if none would. An exchange made with the answer is not
   * matched again ({@link #route}).
   */
  Routed directRoute(HttpMethod method, String rawPath) {
    PathSegments.Decoded path = PathSegments.parse(rawPath);
    if (path == null || path.malformed() >= 0) {
      return null;
    }
    Route handler = match(method, path.segments()).handler();
    return handler != null && handler.direct()
        ? new Routed(handler, handler.params(path.segments())) : null;
  }

  public void route(Exchange exchange) {
    Routed direct = exchange.directRoute();
    if (direct != null) {
      exchange.routedTo(direct.route().path());
      handle(direct.route(), exchange, direct.params());
      return;
    }
    PathSegments.Decoded path = PathSegments.parse(exchange.path());
    if (path == null) {
      exchange.fail(HttpError.notFound());
      return;
    }
    List<String> segments = path.segments();
    Match match = match(exchange.method(), segments);
    Route owner = match.owner();
    if (owner == null) {
      exchange.fail(HttpError.notFound());
      return;
    }
    exchange.routedTo(owner.path());
    if (path.malformed() >= 0) {
      exchange.fail(new HttpError(400, "invalid path: " + path.problem() + " in `"
          + owner.paramName(path.malformed()) + "`", null));
      return;
    }
    Route handler = match.handler();
    if (handler == null) {
      exchange.fail(HttpError.methodNotAllowed());
      return;
    }
    exchange.routedTo(handler.path());
    handle(handler, exchange, handler.params(segments));
  }

  private static void handle(Route route, Exchange exchange, List<String> params) {
    try {
      route.handler().handle(exchange, params);
    } catch (RuntimeException e) {
      exchange.fail(e);
    }
  }
}

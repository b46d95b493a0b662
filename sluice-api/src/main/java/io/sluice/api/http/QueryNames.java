package io.sluice.api.http;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.sluice.engine.SluiceException;
import java.util.Set;

/**
 * The parameter names of a raw query string, decoded and with their case kept. A malformed
 * percent-escape is the client's error, answered 400 rather than failing inside the router.
 */
final class QueryNames {
  private QueryNames() {}

  static Set<String> of(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return Set.of();
    }
    try {
      return new QueryStringDecoder(rawQuery, false).parameters().keySet();
    } catch (IllegalArgumentException e) {
      throw new SluiceException.InvalidRequest(
          "invalid query parameters: malformed percent-encoding (" + e.getMessage() + ")");
    }
  }
}

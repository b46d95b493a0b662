package io.sluice.api.http;

import io.sluice.engine.SluiceException;
import io.vertx.core.MultiMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The parameters of a raw query string, in order, names with their case (API.md §3.8). Pairs are
 * separated by {@code &} or {@code ;} and empty ones skipped, as Netty's decoder did before; a
 * name without {@code =} has the empty value. Names and values are percent-decoded strictly
 * ({@link PercentDecoding}); one that cannot be is a 400 that names it.
 */
public final class QueryParams {
  private QueryParams() {}

  /**
   * The parameters of {@code rawQuery} (null when there is none); any whose name is not in
   * {@code allowed}, compared with its case, is a 400. Every name in the map is then an allowed
   * spelling, so its case-blind lookup is exact.
   */
  public static MultiMap parse(String rawQuery, Set<String> allowed) {
    MultiMap query = MultiMap.caseInsensitiveMultiMap();
    for (Map.Entry<String, String> param : pairs(rawQuery)) {
      if (!allowed.contains(param.getKey())) {
        throw new SluiceException.InvalidRequest(
            "invalid query parameters: unknown parameter `" + param.getKey() + "`");
      }
      query.add(param.getKey(), param.getValue());
    }
    return query;
  }

  /** Every pair, decoded, before any name is checked. */
  private static List<Map.Entry<String, String>> pairs(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return List.of();
    }
    List<Map.Entry<String, String>> params = new ArrayList<>();
    int start = 0;
    while (start <= rawQuery.length()) {
      int end = start;
      while (end < rawQuery.length() && rawQuery.charAt(end) != '&'
          && rawQuery.charAt(end) != ';') {
        end++;
      }
      if (end > start) {
        params.add(pair(rawQuery.substring(start, end)));
      }
      start = end + 1;
    }
    return params;
  }

  private static Map.Entry<String, String> pair(String raw) {
    int equals = raw.indexOf('=');
    String rawName = equals < 0 ? raw : raw.substring(0, equals);
    String name;
    try {
      name = PercentDecoding.decode(rawName, true);
    } catch (PercentDecoding.Malformed e) {
      throw new SluiceException.InvalidRequest("invalid query parameters: " + e.getMessage()
          + " in parameter name `" + rawName + "`");
    }
    try {
      return Map.entry(name, equals < 0 ? "" : PercentDecoding.decode(raw.substring(equals + 1),
          true));
    } catch (PercentDecoding.Malformed e) {
      throw new SluiceException.InvalidRequest(
          "invalid query parameters: " + e.getMessage() + " in `" + name + "`");
    }
  }
}

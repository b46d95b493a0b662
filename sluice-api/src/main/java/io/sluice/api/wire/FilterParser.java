package io.sluice.api.wire;

import io.sluice.api.http.PathSegments;
import io.sluice.engine.SluiceException;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.query.JobFilter;
import io.sluice.engine.query.Range;
import io.vertx.core.MultiMap;
import java.math.BigInteger;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the job filters of API.md §7.2 from query parameters: set values comma-separated (empty
 * elements ignored, an empty value means no filter), ranges per §7.1, and the jq {@code filter}.
 * Also renders them back, canonically, for pagination links.
 */
public final class FilterParser {
  public static final Set<String> FILTER_PARAMS = Set.of(
      "id", "queue", "type", "status", "budgets.key", "budgets.partition", "priority", "ready_at",
      "attempts", "filter");
  private static final long U16_MAX = 65_535;
  private static final long U32_MAX = 0xFFFFFFFFL;
  private static final List<String> LINK_ORDER = List.of(
      "status", "queue", "type", "id", "priority", "ready_at", "attempts", "budgets.key",
      "budgets.partition");

  /** Parsed filters: the payload-free part, the optional jq filter, and their link form. */
  public record Query(JobFilter filter, PayloadFilter payloadFilter, String linkParams) {}

  private FilterParser() {}

  public static Query parse(MultiMap query) {
    Set<JobId> ids = null;
    Set<String> rawIds = values(query.get("id"));
    if (rawIds != null) {
      ids = new LinkedHashSet<>();
      for (String raw : rawIds) {
        JobId id = cursorId(raw);
        // A well-formed id beyond 128 bits names no job: it narrows the filter to nothing.
        if (JobId.parseOrNull(raw) != null) {
          ids.add(id);
        }
      }
    }
    Set<JobStatus> statuses = null;
    Set<String> rawStatuses = values(query.get("status"));
    if (rawStatuses != null) {
      statuses = new LinkedHashSet<>();
      for (String raw : rawStatuses) {
        JobStatus status = JobStatus.fromWireName(raw);
        if (status == null) {
          throw new SluiceException.InvalidRequest(
              "invalid query parameters: unknown status: " + raw);
        }
        statuses.add(status);
      }
    }
    Range priority = range(query, "priority", U16_MAX);
    Range readyAt = range(query, "ready_at", Long.MAX_VALUE);
    Range attempts = range(query, "attempts", U32_MAX);
    String jq = query.get("filter");
    PayloadFilter payloadFilter = jq == null || jq.isEmpty() ? null : PayloadFilter.compile(jq);
    Set<String> budgetKeys = values(query.get("budgets.key"));
    Set<String> budgetPartitions = values(query.get("budgets.partition"));
    if (budgetPartitions != null && budgetKeys == null) {
      throw new SluiceException.InvalidRequest(
          "invalid query parameters: budgets.partition requires budgets.key");
    }
    JobFilter filter = new JobFilter(ids, values(query.get("queue")), values(query.get("type")),
        statuses, budgetKeys, priority, readyAt, attempts, budgetPartitions);
    return new Query(filter, payloadFilter, link(query, priority, readyAt, attempts, jq));
  }

  /**
   * A job id from a query (filter or cursor), validated by shape only (API.md §3.4); a
   * well-formed value too large for 128 bits reads as the largest id.
   */
  public static JobId cursorId(String raw) {
    if (!JobId.isWellFormed(raw)) {
      throw new SluiceException.InvalidRequest("invalid job ID: \"" + raw + "\"");
    }
    JobId id = JobId.parseOrNull(raw);
    return id != null ? id : new JobId(-1L, -1L);
  }

  /** The filters as {@code &name=value} pairs in a fixed order, for pagination links. */
  private static String link(MultiMap query, Range priority, Range readyAt, Range attempts,
      String jq) {
    StringBuilder out = new StringBuilder();
    for (String name : LINK_ORDER) {
      String value = switch (name) {
        case "priority" -> render(priority, U16_MAX);
        case "ready_at" -> render(readyAt, Long.MAX_VALUE);
        case "attempts" -> render(attempts, U32_MAX);
        default -> {
          Set<String> set = values(query.get(name));
          yield set == null ? null : String.join(",", new TreeSet<>(set));
        }
      };
      if (value != null) {
        out.append('&').append(name).append('=').append(PathSegments.encode(value)
            .replace("%2C", ",").replace("%2E", "."));
      }
    }
    if (jq != null && !jq.isEmpty()) {
      out.append("&filter=").append(PathSegments.encode(jq));
    }
    return out.toString();
  }

  private static String render(Range range, long max) {
    if (range == null) {
      return null;
    }
    if (range.min() == range.max()) {
      return Long.toString(range.min());
    }
    return (range.min() == 0 ? "" : Long.toString(range.min())) + ".."
        + (range.max() == max ? "" : Long.toString(range.max()));
  }

  /** {@code N}, {@code A..B}, {@code ..B}, {@code A..} or {@code ..} (API.md §7.1). */
  static Range range(MultiMap query, String name, long max) {
    String value = query.get(name);
    if (value == null || value.isEmpty() || value.equals("..")) {
      return null;
    }
    int dots = value.indexOf("..");
    long min;
    long upper;
    if (dots < 0) {
      min = bound(name, value, max);
      upper = min;
    } else {
      String low = value.substring(0, dots);
      String high = value.substring(dots + 2);
      min = low.isEmpty() ? 0 : bound(name, low, max);
      upper = high.isEmpty() ? max : bound(name, high, max);
    }
    if (min > upper) {
      throw new SluiceException.InvalidRequest(
          "invalid query parameters: range lower bound exceeds upper bound");
    }
    return new Range(min, upper);
  }

  private static long bound(String name, String text, long max) {
    BigInteger limit = max == Long.MAX_VALUE
        ? BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE)
        : BigInteger.valueOf(max);
    try {
      if (text.isEmpty() || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
        throw new NumberFormatException();
      }
      BigInteger number = new BigInteger(text);
      if (number.compareTo(limit) > 0) {
        throw new NumberFormatException();
      }
      return number.min(BigInteger.valueOf(Long.MAX_VALUE)).longValue();
    } catch (NumberFormatException e) {
      throw new SluiceException.InvalidRequest("invalid query parameters: `" + name
          + "` must be a non-negative integer or range within 0.." + limit + ", not \"" + text
          + "\"");
    }
  }

  /**
   * A set-valued parameter (API.md §3.8): comma-separated, empty elements ignored; null (no
   * filter) when absent or empty.
   */
  public static Set<String> values(String value) {
    if (value == null || value.isEmpty()) {
      return null;
    }
    Set<String> values = new LinkedHashSet<>();
    for (String element : value.split(",")) {
      if (!element.isEmpty()) {
        values.add(element);
      }
    }
    return values.isEmpty() ? null : values;
  }
}

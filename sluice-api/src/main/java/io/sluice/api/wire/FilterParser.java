package io.sluice.api.wire;

import io.sluice.engine.SluiceException;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.query.JobFilter;
import io.vertx.core.MultiMap;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Reads the job filters of API.md §7.2 from query parameters. Set values are comma-separated;
 * empty elements are ignored and an empty value means "no filter".
 */
public final class FilterParser {
  public static final Set<String> FILTER_PARAMS = Set.of(
      "id", "queue", "type", "status", "budgets.key", "priority", "ready_at", "attempts",
      "filter");
  private static final Set<String> NOT_YET = Set.of("priority", "ready_at", "attempts", "filter");

  private FilterParser() {}

  public static JobFilter parse(MultiMap query) {
    for (String name : NOT_YET) {
      String value = query.get(name);
      if (value != null && !value.isEmpty()) {
        throw new SluiceException.InvalidRequest("invalid query parameters: the `" + name
            + "` filter is not supported by this server yet");
      }
    }
    Set<JobId> ids = null;
    Set<String> rawIds = values(query.get("id"));
    if (rawIds != null) {
      ids = new LinkedHashSet<>();
      for (String raw : rawIds) {
        JobId id = JobId.parseOrNull(raw);
        if (id == null) {
          throw new SluiceException.InvalidRequest("invalid job ID: \"" + raw + "\"");
        }
        ids.add(id);
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
    return new JobFilter(ids, values(query.get("queue")), values(query.get("type")), statuses,
        values(query.get("budgets.key")));
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

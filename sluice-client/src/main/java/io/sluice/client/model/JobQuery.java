package io.sluice.client.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Job filters (API.md §7.2) plus listing options (§7.3). Filters are ANDed; values within one
 * set are ORed. Endpoints that only filter (count, bulk delete, patch and binding changes) ignore
 * {@code order}, {@code limit} and {@code from}.
 */
public final class JobQuery {
  private final Map<String, String> filters = new LinkedHashMap<>();
  private Order order;
  private Integer limit;
  private String from;

  private JobQuery() {}

  /** No filter: every job. */
  public static JobQuery all() {
    return new JobQuery();
  }

  public JobQuery ids(String... ids) {
    return set("id", ids);
  }

  public JobQuery queues(String... queues) {
    return set("queue", queues);
  }

  public JobQuery types(String... types) {
    return set("type", types);
  }

  public JobQuery statuses(JobStatus... statuses) {
    return set("status", Arrays.stream(statuses).map(JobStatus::wireName).toArray(String[]::new));
  }

  public JobQuery priority(Range range) {
    filters.put("priority", range.wire());
    return this;
  }

  /** Epoch milliseconds, see {@link Range#between(java.time.Instant, java.time.Instant)}. */
  public JobQuery readyAt(Range range) {
    filters.put("ready_at", range.wire());
    return this;
  }

  public JobQuery attempts(Range range) {
    filters.put("attempts", range.wire());
    return this;
  }

  /** Jobs bound to any of these budgets. */
  public JobQuery budgetKeys(String... keys) {
    return set("budgets.key", keys);
  }

  /**
   * Jobs bound to any of these partitions (X3) of the budgets named by {@link #budgetKeys},
   * which the server requires beside it.
   */
  public JobQuery budgetPartitions(String... partitions) {
    return set("budgets.partition", partitions);
  }

  /** A jq expression over the payload; a job matches when it yields a truthy value. */
  public JobQuery filter(String jq) {
    filters.put("filter", jq);
    return this;
  }

  public JobQuery order(Order order) {
    this.order = order;
    return this;
  }

  /** Page size, 1 to 2000 (server default 50). */
  public JobQuery limit(int limit) {
    this.limit = limit;
    return this;
  }

  /** Start strictly after this job id in the chosen order. */
  public JobQuery from(String id) {
    this.from = id;
    return this;
  }

  public Map<String, String> filterParameters() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(filters));
  }

  public Map<String, String> listParameters() {
    Map<String, String> params = new LinkedHashMap<>(filters);
    if (from != null) {
      params.put("from", from);
    }
    if (order != null) {
      params.put("order", order.wireName());
    }
    if (limit != null) {
      params.put("limit", limit.toString());
    }
    return params;
  }

  private JobQuery set(String name, String... values) {
    filters.put(name, Arrays.stream(values).collect(Collectors.joining(",")));
    return this;
  }
}

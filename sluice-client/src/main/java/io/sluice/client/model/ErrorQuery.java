package io.sluice.client.model;

import java.util.LinkedHashMap;
import java.util.Map;

/** Listing options for a job's error records, ordered by attempt (API.md §8.12). */
public final class ErrorQuery {
  private Order order;
  private Integer limit;
  private Integer fromAttempt;

  private ErrorQuery() {}

  public static ErrorQuery all() {
    return new ErrorQuery();
  }

  public ErrorQuery order(Order order) {
    this.order = order;
    return this;
  }

  public ErrorQuery limit(int limit) {
    this.limit = limit;
    return this;
  }

  /** Start strictly after this attempt number. */
  public ErrorQuery fromAttempt(int attempt) {
    this.fromAttempt = attempt;
    return this;
  }

  public Map<String, String> parameters() {
    Map<String, String> params = new LinkedHashMap<>();
    if (fromAttempt != null) {
      params.put("from", fromAttempt.toString());
    }
    if (order != null) {
      params.put("order", order.wireName());
    }
    if (limit != null) {
      params.put("limit", limit.toString());
    }
    return params;
  }
}

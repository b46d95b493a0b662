package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** Concurrency limit or rate limit (BUDGETS.md §1). */
public enum StrategyType {
  WHILE_IN_FLIGHT("while_in_flight"),
  TIME_BASED("time_based");

  private final String wireName;

  StrategyType(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }
}

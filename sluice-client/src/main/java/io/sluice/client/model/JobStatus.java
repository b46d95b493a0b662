package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** A job's place in its lifecycle (API.md §4.1). */
public enum JobStatus {
  SCHEDULED("scheduled"),
  READY("ready"),
  IN_FLIGHT("in_flight"),
  COMPLETED("completed"),
  DEAD("dead");

  private final String wireName;

  JobStatus(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  public boolean isTerminal() {
    return this == COMPLETED || this == DEAD;
  }
}

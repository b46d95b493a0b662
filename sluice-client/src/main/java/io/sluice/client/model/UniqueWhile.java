package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** How long a unique job holds its key against duplicates (API.md §4.5). */
public enum UniqueWhile {
  QUEUED("queued"),
  ACTIVE("active"),
  EXISTS("exists");

  private final String wireName;

  UniqueWhile(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }
}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a job really cost on one of its budgets, reported when it is acknowledged (EXTENSIONS.md
 * X5): a rate budget takes the difference from what the binding paid at dispatch, or refunds it.
 */
public record Settlement(@JsonProperty("key") String key, @JsonProperty("cost") long cost) {
  public static Settlement of(String key, long cost) {
    return new Settlement(key, cost);
  }
}

package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a job really cost on one of its budgets, reported when it is acknowledged (EXTENSIONS.md
 * X5): a rate budget takes the difference from what the binding paid at dispatch, or refunds it.
 * For a partitioned budget (X3) the settlement goes to the partition the job's binding draws on;
 * {@code partition} may name it (null: not named), and naming another one is refused.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Settlement(
    @JsonProperty("key") String key,
    @JsonProperty("cost") long cost,
    @JsonProperty("partition") String partition) {

  public Settlement(String key, long cost) {
    this(key, cost, null);
  }

  public static Settlement of(String key, long cost) {
    return new Settlement(key, cost);
  }

  /** A settlement of partition {@code partition} of the partitioned budget {@code key} (X3). */
  public static Settlement of(String key, String partition, long cost) {
    return new Settlement(key, cost, partition);
  }
}

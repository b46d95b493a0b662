package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;

/**
 * Why a job is not running yet, and when it could (Sluice X2). {@code waitingFor} is
 * {@code "ready_at"}, {@code "budgets"}, {@code "worker"}, or null once the job runs or finished.
 */
public record JobWait(
    @JsonProperty("id") String id,
    @JsonProperty("status") String status,
    @JsonProperty("as_of") Instant asOf,
    @JsonProperty("waiting_for") String waitingFor,
    @JsonProperty("ready_at") Instant readyAt,
    @JsonProperty("budgets") List<BudgetWait> budgets,
    @JsonProperty("estimated_dispatch_at") Instant estimatedDispatchAt) {

  /**
   * One budget's part: {@code reason} is {@code "queue"}, {@code "tokens"},
   * {@code "concurrency"}, {@code "paused"}, {@code "debt"}, or null when this budget does not
   * hold the job back. For a partitioned budget (X3) {@code partition} names the partition the
   * job draws on, and {@code ahead} counts only that partition's jobs; null otherwise.
   */
  public record BudgetWait(
      @JsonProperty("key") String key,
      @JsonProperty("cost") long cost,
      @JsonProperty("blocking") boolean blocking,
      @JsonProperty("reason") String reason,
      @JsonProperty("tokens") long tokens,
      @JsonProperty("ahead") BudgetState.JobsAndCost ahead,
      @JsonProperty("available_at") Instant availableAt,
      @JsonProperty("partition") String partition) {}
}

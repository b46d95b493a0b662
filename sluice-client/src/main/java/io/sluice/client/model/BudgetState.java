package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * A budget's live state (Sluice X1), as of {@code asOf}: tokens now, what is in flight and what
 * waits, and when the next token arrives and the pool is full ({@code time_based} only).
 *
 * <p>For a partitioned budget as a whole (X3) the counts sum over its partitions, there are no
 * tokens, debt or token instants ({@code tokens} and {@code debt} read 0, the instants null: the
 * server sends null), and {@code partitions} is the number of partitions in use. It is null for
 * a plain budget and for one partition, whose state is that of its own pool.
 */
public record BudgetState(
    @JsonProperty("as_of") Instant asOf,
    @JsonProperty("tokens") long tokens,
    @JsonProperty("capacity") long capacity,
    @JsonProperty("debt") long debt,
    @JsonProperty("in_flight") JobsAndCost inFlight,
    @JsonProperty("waiting") JobsAndCost waiting,
    @JsonProperty("next_token_at") Instant nextTokenAt,
    @JsonProperty("full_at") Instant fullAt,
    @JsonProperty("paused_until") Instant pausedUntil,
    @JsonProperty("dispatched") long dispatched,
    @JsonProperty("partitions") Long partitions) {

  /** A number of jobs and their summed cost. */
  public record JobsAndCost(@JsonProperty("jobs") long jobs, @JsonProperty("cost") long cost) {}
}

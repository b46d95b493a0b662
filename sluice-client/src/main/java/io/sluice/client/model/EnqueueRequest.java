package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.List;

/**
 * One job to enqueue (API.md §8.2), also the job template of a cron entry. {@code payload} is
 * any value Jackson can serialise; null sends JSON null. Build with {@link #builder}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EnqueueRequest(
    @JsonProperty("type") String type,
    @JsonProperty("queue") String queue,
    @JsonProperty("payload") @JsonInclude(JsonInclude.Include.ALWAYS) Object payload,
    @JsonProperty("priority") Integer priority,
    @JsonProperty("ready_at") Instant readyAt,
    @JsonProperty("retry_limit") Long retryLimit,
    @JsonProperty("backoff") Backoff backoff,
    @JsonProperty("retention") Retention retention,
    @JsonProperty("unique_key") String uniqueKey,
    @JsonProperty("unique_while") UniqueWhile uniqueWhile,
    @JsonProperty("batch") Batch batch,
    @JsonProperty("budgets") List<BudgetBinding> budgets) {

  public static Builder builder(String queue, String type, Object payload) {
    return new Builder(queue, type, payload);
  }

  /** Collects the optional fields; unset ones are left to the server's defaults. */
  public static final class Builder {
    private final String queue;
    private final String type;
    private final Object payload;
    private Integer priority;
    private Instant readyAt;
    private Long retryLimit;
    private Backoff backoff;
    private Retention retention;
    private String uniqueKey;
    private UniqueWhile uniqueWhile;
    private Batch batch;
    private List<BudgetBinding> budgets;

    private Builder(String queue, String type, Object payload) {
      this.queue = queue;
      this.type = type;
      this.payload = payload;
    }

    /** 0 (runs first) to 65535; the server default is 32768. */
    public Builder priority(int priority) {
      this.priority = priority;
      return this;
    }

    /** Not runnable before this instant (the job is {@code scheduled} until then). */
    public Builder readyAt(Instant readyAt) {
      this.readyAt = readyAt;
      return this;
    }

    public Builder retryLimit(long retryLimit) {
      this.retryLimit = retryLimit;
      return this;
    }

    public Builder backoff(Backoff backoff) {
      this.backoff = backoff;
      return this;
    }

    public Builder retention(Retention retention) {
      this.retention = retention;
      return this;
    }

    public Builder unique(String key) {
      this.uniqueKey = key;
      return this;
    }

    public Builder unique(String key, UniqueWhile scope) {
      this.uniqueKey = key;
      this.uniqueWhile = scope;
      return this;
    }

    public Builder batch(Batch batch) {
      this.batch = batch;
      return this;
    }

    public Builder budgets(BudgetBinding... bindings) {
      this.budgets = List.of(bindings);
      return this;
    }

    public EnqueueRequest build() {
      return new EnqueueRequest(type, queue, payload, priority, readyAt, retryLimit, backoff,
          retention, uniqueKey, uniqueWhile, batch, budgets);
    }
  }
}

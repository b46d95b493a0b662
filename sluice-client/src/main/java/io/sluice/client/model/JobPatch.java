package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;

/**
 * A JSON merge patch of a job (API.md §8.16). Fields not touched stay unchanged; the
 * {@code default...} methods send null, which resets that field to the server default.
 */
public final class JobPatch {
  private final ObjectNode body = JsonNodeFactory.instance.objectNode();

  private JobPatch() {}

  public static JobPatch create() {
    return new JobPatch();
  }

  public JobPatch queue(String queue) {
    body.put("queue", queue);
    return this;
  }

  public JobPatch priority(int priority) {
    body.put("priority", priority);
    return this;
  }

  public JobPatch readyAt(Instant readyAt) {
    body.put("ready_at", readyAt.toEpochMilli());
    return this;
  }

  /** A scheduled job becomes ready now; other statuses are unaffected. */
  public JobPatch readyNow() {
    body.putNull("ready_at");
    return this;
  }

  public JobPatch retryLimit(long retryLimit) {
    body.put("retry_limit", retryLimit);
    return this;
  }

  public JobPatch defaultRetryLimit() {
    body.putNull("retry_limit");
    return this;
  }

  public JobPatch backoff(Backoff backoff) {
    body.putObject("backoff")
        .put("base_ms", backoff.base().toMillis())
        .put("exponent", backoff.exponent())
        .put("jitter_ms", backoff.jitter().toMillis());
    return this;
  }

  public JobPatch defaultBackoff() {
    body.putNull("backoff");
    return this;
  }

  /** Retention is merged: this sets the completed retention and leaves the dead one. */
  public JobPatch completedRetention(Duration retention) {
    retention().put("completed_ms", retention.toMillis());
    return this;
  }

  public JobPatch deadRetention(Duration retention) {
    retention().put("dead_ms", retention.toMillis());
    return this;
  }

  public JobPatch defaultCompletedRetention() {
    retention().putNull("completed_ms");
    return this;
  }

  public JobPatch defaultDeadRetention() {
    retention().putNull("dead_ms");
    return this;
  }

  /** Drops the job's whole retention override. */
  public JobPatch defaultRetention() {
    body.putNull("retention");
    return this;
  }

  private ObjectNode retention() {
    return body.get("retention") instanceof ObjectNode existing
        ? existing
        : body.putObject("retention");
  }

  @JsonValue
  public ObjectNode body() {
    return body.deepCopy();
  }
}

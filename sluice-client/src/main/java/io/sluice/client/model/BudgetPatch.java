package io.sluice.client.model;

import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;

/**
 * A merge patch of a budget policy (BUDGETS.md §8.5). Changing the strategy type drops the
 * stored period and burst, so a switch to time-based must set {@link #duration} too.
 */
public final class BudgetPatch {
  private final ObjectNode body = JsonNodeFactory.instance.objectNode();

  private BudgetPatch() {}

  public static BudgetPatch create() {
    return new BudgetPatch();
  }

  public BudgetPatch allocation(long allocation) {
    body.put("allocation", allocation);
    return this;
  }

  public BudgetPatch type(StrategyType type) {
    strategy().put("type", type.wireName());
    return this;
  }

  public BudgetPatch duration(Duration period) {
    strategy().put("duration_ms", period.toMillis());
    return this;
  }

  public BudgetPatch burst(long burst) {
    strategy().put("burst", burst);
    return this;
  }

  /** Keeps the token state across server restarts (X4), or stops keeping it. */
  public BudgetPatch durable(boolean durable) {
    body.put("durable", durable);
    return this;
  }

  /** Capacity returns to the allocation. */
  public BudgetPatch clearBurst() {
    strategy().putNull("burst");
    return this;
  }

  private ObjectNode strategy() {
    return body.get("strategy") instanceof ObjectNode existing
        ? existing
        : body.putObject("strategy");
  }

  @JsonValue
  public ObjectNode body() {
    return body.deepCopy();
  }
}

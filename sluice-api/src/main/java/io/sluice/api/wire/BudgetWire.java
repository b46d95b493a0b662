package io.sluice.api.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.SluiceException;
import io.sluice.engine.job.Binding;
import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.BudgetPolicy;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.PolicyPatch;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.budget.StrategyType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Wire shapes of budgets and bindings (BUDGETS.md §2.1, §4.1, §8.5). Structural problems (a
 * missing or mistyped field, a number out of its wire range) are 400s here; the policy rules
 * themselves are checked by the engine (422).
 */
public final class BudgetWire {
  private static final long U32_MAX = 0xFFFFFFFFL;

  private BudgetWire() {}

  /** A {@code {allocation, strategy}} body or {@code create_with} object. */
  public static PolicySpec policySpec(Fields fields, JsonNode node) {
    fields.object(node, "the budget policy");
    long allocation = fields.unsigned(node, "allocation", U32_MAX);
    JsonNode strategy = fields.required(node, "strategy");
    Fields nested = fields.nested("strategy");
    nested.object(strategy, "strategy");
    String type = nested.string(strategy, "type");
    Long durationMs = Fields.absent(strategy, "duration_ms")
        ? null : nested.u64(strategy, "duration_ms");
    Long burst = Fields.absent(strategy, "burst")
        ? null : nested.unsigned(strategy, "burst", U32_MAX);
    boolean durable = !Fields.absent(node, "durable") && fields.bool(node, "durable");
    return new PolicySpec(allocation, type, durationMs, burst, durable, partitioned(fields, node));
  }

  /** The top-level {@code partitioned} flag (X3), null when absent. */
  private static Boolean partitioned(Fields fields, JsonNode node) {
    return Fields.absent(node, "partitioned") ? null : fields.bool(node, "partitioned");
  }

  /** A pause body (X6): exactly one of {@code for_ms} and {@code until}. */
  public record PauseRequest(Long forMs, Long untilMs) {}

  public static PauseRequest pauseRequest(Fields fields, JsonNode node) {
    fields.object(node, "the pause");
    boolean hasFor = !Fields.absent(node, "for_ms");
    boolean hasUntil = !Fields.absent(node, "until");
    if (hasFor == hasUntil) {
      throw fields.error("a pause takes exactly one of for_ms and until");
    }
    return hasFor
        ? new PauseRequest(fields.u64(node, "for_ms"), null)
        : new PauseRequest(null, fields.u64(node, "until"));
  }

  /** A PATCH body; nulls other than {@code strategy.burst} are refused with 422. */
  public static PolicyPatch policyPatch(Fields fields, JsonNode node) {
    fields.object(node, "the budget patch");
    rejectNull(node, "allocation", "allocation");
    rejectNull(node, "strategy", "strategy");
    rejectNull(node, "durable", "durable");
    rejectNull(node, "partitioned", "partitioned");
    Long allocation = node.has("allocation") ? fields.unsigned(node, "allocation", U32_MAX) : null;
    Boolean durable = node.has("durable") ? fields.bool(node, "durable") : null;
    Boolean partitioned = partitioned(fields, node);
    JsonNode strategy = node.get("strategy");
    if (strategy == null) {
      return new PolicyPatch(allocation, null, null, null, false, durable, partitioned);
    }
    Fields nested = fields.nested("strategy");
    nested.object(strategy, "strategy");
    rejectNull(strategy, "type", "strategy.type");
    rejectNull(strategy, "duration_ms", "strategy.duration_ms");
    String type = strategy.has("type") ? nested.string(strategy, "type") : null;
    Long durationMs = strategy.has("duration_ms") ? nested.u64(strategy, "duration_ms") : null;
    boolean clearBurst = strategy.has("burst") && strategy.get("burst").isNull();
    Long burst = strategy.has("burst") && !clearBurst
        ? nested.unsigned(strategy, "burst", U32_MAX) : null;
    return new PolicyPatch(allocation, type, durationMs, burst, clearBurst, durable,
        partitioned);
  }

  private static void rejectNull(JsonNode node, String field, String name) {
    JsonNode value = node.get(field);
    if (value != null && value.isNull()) {
      throw new SluiceException.Unprocessable(name + " cannot be null");
    }
  }

  /** An enqueue's {@code budgets} array (null or absent means none). */
  public static List<BindingRequest> bindings(Fields fields, JsonNode array) {
    if (array == null || array.isNull()) {
      return List.of();
    }
    if (!array.isArray()) {
      throw fields.error("`budgets` must be an array");
    }
    List<BindingRequest> bindings = new ArrayList<>(array.size());
    for (JsonNode element : array) {
      bindings.add(binding(fields.nested("budgets[]"), element, null));
    }
    return bindings;
  }

  /** One binding; {@code pathKey} (binding routes) overrides any {@code key} in the body. */
  public static BindingRequest binding(Fields fields, JsonNode node, String pathKey) {
    fields.object(node, "the budget binding");
    String key = pathKey != null ? pathKey : fields.string(node, "key");
    Long cost = Fields.absent(node, "cost") ? null : fields.unsigned(node, "cost", U32_MAX);
    PolicySpec createWith = Fields.absent(node, "create_with")
        ? null : policySpec(fields.nested("create_with"), node.get("create_with"));
    String partition = Fields.absent(node, "partition") ? null : fields.string(node, "partition");
    return new BindingRequest(key, cost, createWith, partition);
  }

  public static void writeBudget(JsonGenerator gen, BudgetView budget) throws IOException {
    gen.writeStartObject();
    writeBudgetFields(gen, budget);
    gen.writeEndObject();
  }

  /** A budget with its live state (X1) as of {@code asOfMs}. */
  public static void writeBudget(JsonGenerator gen, BudgetState state, long asOfMs)
      throws IOException {
    gen.writeStartObject();
    writeBudgetFields(gen, state.view());
    writeState(gen, state, asOfMs);
    gen.writeEndObject();
  }

  /**
   * One partition of a partitioned budget (X3):
   * {@code {"key", "partition", "state": {…X1…}}}.
   */
  public static void writePartition(JsonGenerator gen, BudgetState state, long asOfMs)
      throws IOException {
    gen.writeStartObject();
    gen.writeStringField("key", state.view().key());
    gen.writeStringField("partition", state.partition());
    writeState(gen, state, asOfMs);
    gen.writeEndObject();
  }

  /**
   * {@code "state": {…}} (X1). A partitioned budget as a whole has no tokens, debt or token
   * instants (null) and says how many partitions it holds.
   */
  private static void writeState(JsonGenerator gen, BudgetState state, long asOfMs)
      throws IOException {
    gen.writeObjectFieldStart("state");
    gen.writeNumberField("as_of", asOfMs);
    writeNullableNumber(gen, "tokens", state.tokensAt(asOfMs));
    gen.writeNumberField("capacity", state.capacity());
    writeNullableNumber(gen, "debt", state.debtAt(asOfMs));
    writeJobsAndCost(gen, "in_flight", state.inFlightJobs(), state.inFlightCost());
    writeJobsAndCost(gen, "waiting", state.waitingJobs(), state.waitingCost());
    writeNullableNumber(gen, "next_token_at", state.nextTokenAtMs(asOfMs));
    writeNullableNumber(gen, "full_at", state.fullAtMs(asOfMs));
    writeNullableNumber(gen, "paused_until", state.pausedUntilMs(asOfMs));
    gen.writeNumberField("dispatched", state.dispatched());
    if (state.view().partitioned() && state.partition() == null) {
      gen.writeNumberField("partitions", state.partitions());
    }
    gen.writeEndObject();
  }

  /** {@code "name": {"jobs": n, "cost": c}}. */
  public static void writeJobsAndCost(JsonGenerator gen, String name, long jobs, long cost)
      throws IOException {
    gen.writeObjectFieldStart(name);
    gen.writeNumberField("jobs", jobs);
    gen.writeNumberField("cost", cost);
    gen.writeEndObject();
  }

  public static void writeNullableNumber(JsonGenerator gen, String name, Long value)
      throws IOException {
    if (value == null) {
      gen.writeNullField(name);
    } else {
      gen.writeNumberField(name, value);
    }
  }

  private static void writeBudgetFields(JsonGenerator gen, BudgetView budget) throws IOException {
    BudgetPolicy policy = budget.policy();
    gen.writeStringField("key", budget.key());
    gen.writeNumberField("allocation", policy.allocation());
    gen.writeObjectFieldStart("strategy");
    gen.writeStringField("type", policy.type().wireName());
    if (policy.type() == StrategyType.TIME_BASED) {
      gen.writeNumberField("duration_ms", policy.durationMs());
      if (policy.burst() != null) {
        gen.writeNumberField("burst", policy.burst());
      }
    }
    gen.writeEndObject();
    // X3, X4: shown only when true, so a budget without them serialises as BUDGETS.md §2.1.
    if (budget.partitioned()) {
      gen.writeBooleanField("partitioned", true);
    }
    if (policy.durable()) {
      gen.writeBooleanField("durable", true);
    }
    gen.writeNumberField("created_at", budget.createdAtMs());
    gen.writeNumberField("updated_at", budget.updatedAtMs());
  }

  /**
   * A job's bindings as {@code "budgets": [{key, cost, settled_cost?}]}, omitted when there are
   * none; {@code settled_cost} only on a settled binding (X5).
   */
  public static void writeBindings(JsonGenerator gen, List<Binding> bindings) throws IOException {
    if (bindings.isEmpty()) {
      return;
    }
    gen.writeArrayFieldStart("budgets");
    for (Binding binding : bindings) {
      gen.writeStartObject();
      gen.writeStringField("key", binding.key());
      if (binding.partition() != null) {
        gen.writeStringField("partition", binding.partition());
      }
      gen.writeNumberField("cost", binding.cost());
      if (binding.settledCost() != null) {
        gen.writeNumberField("settled_cost", binding.settledCost());
      }
      gen.writeEndObject();
    }
    gen.writeEndArray();
  }
}

package io.sluice.api.wire;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.engine.budget.JobSettlement;
import io.sluice.engine.budget.Settlement;
import java.util.ArrayList;
import java.util.List;

/**
 * The settlements an acknowledgement may carry (X5): a {@code budgets} array of {@code {key,
 * cost, partition?}} on a single success or failure, a {@code settlements} array of {@code {id,
 * budgets}} on a bulk success. Structure only (400); whether they fit the job is the engine's
 * call (422).
 */
public final class SettlementParser {
  private static final long U32_MAX = 0xFFFFFFFFL;

  private SettlementParser() {}

  /** The {@code budgets} field of {@code body}; empty when it is absent or null. */
  public static List<Settlement> budgets(Fields fields, JsonNode body) {
    if (Fields.absent(body, "budgets")) {
      return List.of();
    }
    JsonNode array = body.get("budgets");
    if (!array.isArray()) {
      throw fields.error("`budgets` must be an array");
    }
    Fields element = fields.nested("budgets[]");
    List<Settlement> settlements = new ArrayList<>(array.size());
    for (JsonNode node : array) {
      element.object(node, "the budget settlement");
      String key = element.string(node, "key");
      long cost = element.unsigned(node, "cost", U32_MAX);
      String partition =
          Fields.absent(node, "partition") ? null : element.string(node, "partition");
      settlements.add(new Settlement(key, cost, partition));
    }
    return settlements;
  }

  /** The {@code settlements} field of a bulk success; empty when it is absent or null. */
  public static List<JobSettlement> bulk(Fields fields, JsonNode body) {
    if (Fields.absent(body, "settlements")) {
      return List.of();
    }
    JsonNode array = body.get("settlements");
    if (!array.isArray()) {
      throw fields.error("`settlements` must be an array");
    }
    Fields element = fields.nested("settlements[]");
    List<JobSettlement> settlements = new ArrayList<>(array.size());
    for (JsonNode node : array) {
      element.object(node, "the job settlement");
      settlements.add(new JobSettlement(element.string(node, "id"), budgets(element, node)));
    }
    return settlements;
  }
}

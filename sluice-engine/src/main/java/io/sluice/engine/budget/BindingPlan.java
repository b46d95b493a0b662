package io.sluice.engine.budget;

import io.sluice.engine.job.Binding;
import io.sluice.engine.Names;
import io.sluice.engine.SluiceException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Resolves the bindings of one request (BUDGETS.md §4.2) before anything is written: existing
 * budgets keep their stored policy, missing ones are planned from {@code create_with} (the first
 * in the request wins) and count against the budget cap. {@link #apply} then creates them.
 */
public final class BindingPlan {
  private final BudgetBook book;
  /** The most UTF-8 bytes a partition value may take (X3). */
  public static final int MAX_PARTITION_BYTES = 256;

  /** A budget this request creates. */
  private record Planned(BudgetPolicy policy, boolean partitioned) {}

  private final Map<String, Planned> creations = new LinkedHashMap<>();

  BindingPlan(BudgetBook book) {
    this.book = book;
  }

  /** The resolved bindings of one job, in request order; any violation is a 422. */
  public List<Binding> resolve(List<BindingRequest> requests) {
    if (requests.isEmpty()) {
      return List.of();
    }
    List<Binding> bindings = new ArrayList<>(requests.size());
    Set<String> seen = requests.size() == 1 ? null : new HashSet<>();
    for (BindingRequest request : requests) {
      String key = request.key();
      String violation = Names.violation("budget key", key);
      if (violation != null) {
        throw new SluiceException.Unprocessable(violation);
      }
      if (seen != null && !seen.add(key)) {
        throw new SluiceException.Unprocessable("budget '" + key + "' named more than once");
      }
      long cost = request.cost() == null ? 1 : request.cost();
      if (cost == 0) {
        throw new SluiceException.Unprocessable("budget cost must be at least 1");
      }
      Budget existing = book.get(key);
      Planned plan = existing != null
          ? new Planned(existing.policy(), existing.partitioned())
          : planned(key, request.createWith());
      checkPartition(key, plan.partitioned(), request.partition());
      BudgetPolicy policy = plan.policy();
      if (cost > policy.capacity()) {
        throw new SluiceException.Unprocessable("cost " + cost + " exceeds budget '" + key
            + "', which holds at most " + policy.capacity());
      }
      // The stored budget's own key instance: every job then shares it, and lookups by it hit
      // the cached hash and the identity check.
      bindings.add(new Binding(existing != null ? existing.key() : key, request.partition(),
          cost));
    }
    return bindings;
  }

  /** A binding names a partition exactly when its budget is partitioned (X3). */
  public static void checkPartition(String key, boolean partitioned, String partition) {
    if (partitioned && partition == null) {
      throw new SluiceException.Unprocessable(
          "budget " + key + " is partitioned: binding requires a partition");
    }
    if (!partitioned && partition != null) {
      throw new SluiceException.Unprocessable("budget " + key + " is not partitioned");
    }
    if (partition != null) {
      checkPartitionValue(partition);
    }
  }

  /** A partition value follows the name rules and takes at most 256 bytes. */
  public static void checkPartitionValue(String partition) {
    String violation = Names.violation("budget partition", partition);
    if (violation != null) {
      throw new SluiceException.Unprocessable(violation);
    }
    if (partition.length() > MAX_PARTITION_BYTES / 3
        && partition.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
            > MAX_PARTITION_BYTES) {
      throw new SluiceException.Unprocessable(
          "budget partition must be at most " + MAX_PARTITION_BYTES + " bytes");
    }
  }

  /** The policy of a budget this request creates (planning it on first mention). */
  private Planned planned(String key, PolicySpec createWith) {
    Planned planned = creations.get(key);
    if (planned != null) {
      return planned;
    }
    if (createWith == null) {
      throw new SluiceException.Unprocessable("budget '" + key
          + "' does not exist and no create_with policy was supplied to create it with");
    }
    Planned plan = new Planned(BudgetPolicy.validate(createWith), createWith.isPartitioned());
    book.checkRoomFor(key, creations.size());
    creations.put(key, plan);
    return plan;
  }

  /** Creates the planned budgets (full buckets) and returns them, in plan order. */
  public List<Budget> apply(long nowMs) {
    List<Budget> created = new ArrayList<>(creations.size());
    for (Map.Entry<String, Planned> creation : creations.entrySet()) {
      Planned plan = creation.getValue();
      created.add(book.create(creation.getKey(), plan.policy(), plan.partitioned(), nowMs));
    }
    return created;
  }
}

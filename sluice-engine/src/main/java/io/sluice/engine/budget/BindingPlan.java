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
  private final Map<String, BudgetPolicy> creations = new LinkedHashMap<>();

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
      BudgetPolicy policy =
          existing != null ? existing.policy() : planned(key, request.createWith());
      if (cost > policy.capacity()) {
        throw new SluiceException.Unprocessable("cost " + cost + " exceeds budget '" + key
            + "', which holds at most " + policy.capacity());
      }
      // The stored budget's own key instance: every job then shares it, and lookups by it hit
      // the cached hash and the identity check.
      bindings.add(new Binding(existing != null ? existing.key() : key, cost));
    }
    return bindings;
  }

  /** The policy of a budget this request creates (planning it on first mention). */
  private BudgetPolicy planned(String key, PolicySpec createWith) {
    BudgetPolicy planned = creations.get(key);
    if (planned != null) {
      return planned;
    }
    if (createWith == null) {
      throw new SluiceException.Unprocessable("budget '" + key
          + "' does not exist and no create_with policy was supplied to create it with");
    }
    BudgetPolicy policy = BudgetPolicy.validate(createWith);
    book.checkRoomFor(key, creations.size());
    creations.put(key, policy);
    return policy;
  }

  /** Creates the planned budgets (full buckets) and returns them, in plan order. */
  public List<Budget> apply(long nowMs) {
    List<Budget> created = new ArrayList<>(creations.size());
    creations.forEach((key, policy) -> created.add(book.create(key, policy, nowMs)));
    return created;
  }
}

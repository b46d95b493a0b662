package io.sluice.engine.budget;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Publishes budget state for other threads (X1): the engine thread marks each budget whose
 * counters, bucket or policy it changed, and publishes a fresh {@link BudgetState} of each at the
 * end of the turn and after dispatch, so a reader never waits for the engine.
 */
final class BudgetPublisher {
  private final Map<String, BudgetState> published;
  private final Set<Budget> changed = new HashSet<>();

  BudgetPublisher(Map<String, BudgetState> published) {
    this.published = published;
  }

  void changed(Budget budget) {
    changed.add(budget);
  }

  /**
   * Publishes every changed budget; a key no longer in {@code current} is withdrawn. A budget
   * deleted earlier can still be marked (a partition of it forgotten later, X3): when its key
   * names a new budget, that one's state stays published.
   */
  void publish(Map<String, Budget> current) {
    if (changed.isEmpty()) {
      return;
    }
    for (Budget budget : changed) {
      if (!current.containsKey(budget.key())) {
        published.remove(budget.key());
      }
    }
    for (Budget budget : changed) {
      if (current.get(budget.key()) == budget) {
        published.put(budget.key(), new BudgetState(budget));
      }
    }
    changed.clear();
  }

  /** Publishes every budget of {@code current} and withdraws every other. */
  void publishAll(Map<String, Budget> current) {
    changed.addAll(current.values());
    published.keySet().retainAll(current.keySet());
    publish(current);
  }
}

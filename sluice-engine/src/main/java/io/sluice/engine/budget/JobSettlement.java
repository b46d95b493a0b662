package io.sluice.engine.budget;

import java.util.List;

/** The settlements of one job in a bulk acknowledgement (X5), by the job's id as sent. */
public record JobSettlement(String id, List<Settlement> budgets) {
  public JobSettlement {
    budgets = List.copyOf(budgets);
  }
}

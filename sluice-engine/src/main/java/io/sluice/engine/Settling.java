package io.sluice.engine;

import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.budget.JobSettlement;
import io.sluice.engine.budget.Settlement;
import io.sluice.engine.job.Binding;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobStatus;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Settling the real cost of a job at acknowledgement (X5): checks every settlement of a request
 * before anything is acknowledged, then applies each to the job's binding and budget.
 *
 * <p>Runs on the engine thread.
 */
final class Settling {
  private final JobTable jobs;
  private final BudgetBook budgets;

  Settling(JobTable jobs, BudgetBook budgets) {
    this.jobs = jobs;
    this.budgets = budgets;
  }

  /**
   * Refuses (422) settlements that name a budget the in-flight {@code job} is not bound to, a
   * partition it is not bound to (X3: a binding draws on one partition, so naming it is optional),
   * one budget twice, or a cost above {@link Settlement#MAX_COST}.
   */
  void check(Job job, List<Settlement> settlements, String prefix) {
    Set<String> named = new HashSet<>();
    for (Settlement settlement : settlements) {
      String key = settlement.key();
      Binding binding = job.binding(key);
      if (binding == null) {
        throw refused(prefix + "job is not bound to budget " + key);
      }
      String partitionProblem = binding.partitionProblem(settlement.partition());
      if (partitionProblem != null) {
        throw refused(prefix + partitionProblem);
      }
      if (!named.add(key)) {
        throw refused(prefix + "budget '" + key + "' named more than once");
      }
      if (settlement.cost() > Settlement.MAX_COST) {
        throw refused(prefix + "settled cost must not exceed " + Settlement.MAX_COST);
      }
    }
  }

  /**
   * Checks the settlements of a bulk acknowledgement of {@code ids}, and returns those of the jobs
   * in flight, by id. Each must name a job among {@code ids}, once; a job that is not in flight
   * is not settled (it is reported not found, like any other).
   */
  Map<JobId, List<Settlement>> checkBulk(AckedIds ids, List<JobSettlement> settlements) {
    if (settlements.isEmpty()) {
      // The usual acknowledgement: no set of its ids to build.
      return Map.of();
    }
    Set<String> acknowledged = new HashSet<>(ids.texts());
    Set<String> seen = new HashSet<>();
    Map<JobId, List<Settlement>> byId = new HashMap<>();
    for (int i = 0; i < settlements.size(); i++) {
      JobSettlement settlement = settlements.get(i);
      String prefix = "settlements[" + i + "]: ";
      if (!acknowledged.contains(settlement.id())) {
        throw refused(prefix + "job " + settlement.id() + " is not in ids");
      }
      if (!seen.add(settlement.id())) {
        throw refused(prefix + "job " + settlement.id() + " is settled more than once");
      }
      JobId id = JobId.parseOrNull(settlement.id());
      Job job = jobs.get(id);
      if (job != null && job.status() == JobStatus.IN_FLIGHT) {
        check(job, settlement.budgets(), prefix);
        byId.put(id, settlement.budgets());
      }
    }
    return byId;
  }

  /** Applies checked settlements: each binding shows its settled cost, each budget pays it. */
  void apply(Job job, List<Settlement> settlements, long nowMs) {
    for (Settlement settlement : settlements) {
      budgets.settle(job.binding(settlement.key()), settlement.cost(), nowMs);
      job.settle(settlement.key(), settlement.cost());
    }
  }

  private static SluiceException refused(String message) {
    return new SluiceException.Unprocessable(message);
  }
}

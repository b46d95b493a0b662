package io.sluice.engine;

import io.sluice.engine.job.Binding;
import io.sluice.engine.budget.BindingChange;
import io.sluice.engine.budget.BindingPlan;
import io.sluice.engine.budget.Budget;
import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.budget.BulkRebindResult;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.query.JobFilter;
import io.sluice.engine.store.Mutation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Changes the budget bindings of queued jobs (BUDGETS.md §8.7): one job by id, or every job a
 * filter selects. New bindings are resolved with the enqueue rules (§4.2), up front and once for
 * a bulk change; a changed job is re-parked under its new bindings.
 *
 * <p>Runs on the engine thread, inside an engine command.
 */
final class JobRebinder {
  private final BudgetBook budgets;
  private final Placement placement;
  private final Writes writes;

  JobRebinder(BudgetBook budgets, Placement placement, Writes writes) {
    this.budgets = budgets;
    this.placement = placement;
    this.writes = writes;
  }

  void changeOne(Job job, BindingChange change, long nowMs) {
    if (job.status() != JobStatus.SCHEDULED && job.status() != JobStatus.READY) {
      throw new SluiceException.Unprocessable("job " + job.id() + " is "
          + job.status().wireName() + "; only scheduled or ready jobs can change budgets");
    }
    BindingPlan plan = budgets.newPlan();
    List<Binding> next = next(job, change, resolve(change, plan, job), true);
    if (!next.equals(job.budgets())) {
      createPlanned(plan, nowMs);
      rebind(job, next, nowMs);
    }
  }

  BulkRebindResult changeAll(Collection<Job> jobs, JobFilter filter, BindingChange change,
      long nowMs) {
    if (change instanceof BindingChange.PatchCost patch) {
      Budget budget = budgets.get(patch.key());
      if (budget == null) {
        return new BulkRebindResult(0, List.of());
      }
      checkCost(patch.cost(), budget);
    }
    BindingPlan plan = budgets.newPlan();
    List<Binding> resolved = resolve(change, plan, null);
    createPlanned(plan, nowMs);
    int changed = 0;
    List<String> blocked = new ArrayList<>();
    for (Job job : List.copyOf(jobs)) {
      if (job.status().isTerminal() || !filter.matches(job, nowMs)) {
        continue;
      }
      List<Binding> next = next(job, change, resolved, false);
      if (next.equals(job.budgets())) {
        continue;
      }
      if (job.status() == JobStatus.IN_FLIGHT) {
        blocked.add(job.id().toString());
        continue;
      }
      rebind(job, next, nowMs);
      changed++;
    }
    blocked.sort(null);
    return new BulkRebindResult(changed, blocked);
  }

  /** The bindings a change brings in, resolved once; null for changes that bring none. */
  private static List<Binding> resolve(BindingChange change, BindingPlan plan, Job job) {
    if (change instanceof BindingChange.ReplaceAll all) {
      return plan.resolve(all.bindings());
    }
    if (change instanceof BindingChange.Add add) {
      boolean alreadyBound = job != null && bound(job.budgets(), add.binding().key()) >= 0;
      return alreadyBound ? null : plan.resolve(List.of(add.binding()));
    }
    if (change instanceof BindingChange.Put put) {
      return plan.resolve(List.of(put.binding()));
    }
    return null;
  }

  /** The job's new bindings; {@code strict} turns a no-op into the single-job route's error. */
  private List<Binding> next(Job job, BindingChange change, List<Binding> resolved,
      boolean strict) {
    List<Binding> current = job.budgets();
    if (change instanceof BindingChange.ReplaceAll) {
      return resolved;
    }
    List<Binding> next = new ArrayList<>(current);
    if (change instanceof BindingChange.Add add) {
      if (bound(current, add.binding().key()) >= 0) {
        if (strict) {
          throw new SluiceException.Conflict("job " + job.id()
              + " is already bound to budget '" + add.binding().key() + "'");
        }
        return current;
      }
      next.addAll(resolved);
    } else if (change instanceof BindingChange.Put put) {
      int at = bound(current, put.binding().key());
      if (at >= 0) {
        next.set(at, resolved.get(0));
      } else {
        next.addAll(resolved);
      }
    } else if (change instanceof BindingChange.PatchCost patch) {
      int at = bound(current, patch.key());
      if (at < 0) {
        return notBound(job, patch.key(), strict);
      }
      if (strict) {
        checkCost(patch.cost(), budgets.get(patch.key()));
      }
      next.set(at, new Binding(patch.key(), current.get(at).partition(), patch.cost()));
    } else if (change instanceof BindingChange.Remove remove) {
      int at = bound(current, remove.key());
      if (at < 0) {
        return notBound(job, remove.key(), strict);
      }
      next.remove(at);
    }
    return next;
  }

  private static List<Binding> notBound(Job job, String key, boolean strict) {
    if (strict) {
      throw new SluiceException.NotFound(
          "job " + job.id() + " is not bound to budget '" + key + "'");
    }
    return job.budgets();
  }

  private static int bound(List<Binding> bindings, String key) {
    for (int i = 0; i < bindings.size(); i++) {
      if (bindings.get(i).key().equals(key)) {
        return i;
      }
    }
    return -1;
  }

  private static void checkCost(long cost, Budget budget) {
    if (cost < 1) {
      throw new SluiceException.Unprocessable("budget cost must be at least 1");
    }
    long capacity = budget.policy().capacity();
    if (cost > capacity) {
      throw new SluiceException.Unprocessable("cost " + cost + " exceeds budget '" + budget.key()
          + "', which holds at most " + capacity);
    }
  }

  private void createPlanned(BindingPlan plan, long nowMs) {
    for (Budget created : plan.apply(nowMs)) {
      writes.write(new Mutation.PutBudget(created.view()));
    }
  }

  /**
   * A ready job leaves dispatch under its old bindings and enters under its new ones; a scheduled
   * job's place does not depend on its bindings, and a pending one has no place yet.
   */
  private void rebind(Job job, List<Binding> next, long nowMs) {
    boolean ready = !job.pending() && job.status() == JobStatus.READY;
    if (ready) {
      placement.unplace(job, nowMs);
    }
    budgets.untrack(job);
    job.budgets(next);
    budgets.track(job);
    if (ready) {
      placement.makeReady(job, nowMs);
    }
    writes.write(JobWrites.put(job));
  }
}

package io.sluice.engine.budget;

import io.sluice.engine.Names;
import io.sluice.engine.SluiceException;
import io.sluice.engine.job.Job;
import io.sluice.engine.schedule.DeadlineIndex;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every budget and the dispatch rules of BUDGETS.md §5–§6: parking, head selection, all-or-nothing
 * acquisition, token release and the lazy wake-up.
 *
 * <p>Owned by the engine thread. Only the head of a budget's waiting queue (one per job queue) is
 * ever evaluated; an affordable head is offered to the engine's dispatchable index, a head blocked
 * by the drip arms one wake-up at the instant it becomes affordable, and every budget that cannot
 * pay remembers the head it blocks, to look at it again on its next release or policy change.
 * At dispatch a head must also come first in its budget across the worker's queues. Nothing
 * scans parked jobs, and unbound jobs never reach this class.
 */
public final class BudgetBook {
  /** The engine's dispatchable index, which holds affordable budget heads beside unbound jobs. */
  public interface Candidates {
    void offer(Job job);

    void withdraw(Job job);
  }

  private final Map<String, Budget> budgets = new HashMap<>();
  private final int maxBudgets;
  private final Candidates candidates;
  private final DeadlineIndex wakes = new DeadlineIndex(Job::wakeAtMs);

  public BudgetBook(int maxBudgets, Candidates candidates) {
    this.maxBudgets = maxBudgets;
    this.candidates = candidates;
  }

  // ---- the budgets themselves ----------------------------------------------------------------

  public Budget get(String key) {
    return budgets.get(key);
  }

  public List<Budget> sortedByKey() {
    List<Budget> all = new ArrayList<>(budgets.values());
    all.sort(Comparator.comparing(Budget::key, Names.BYTE_ORDER));
    return all;
  }

  /** Refuses a creation that would exceed {@code --max-budgets}, counting planned ones. */
  public void checkRoomFor(String key, int alreadyPlanned) {
    if (budgets.size() + alreadyPlanned >= maxBudgets) {
      throw new SluiceException.Unprocessable("cannot create budget '" + key
          + "': the server already holds its maximum of " + maxBudgets
          + " budgets (--max-budgets / SLUICE_MAX_BUDGETS). Raise the limit, or express the"
          + " throttle as one shared budget rather than one per caller.");
    }
  }

  /** Creates a budget with a full bucket. */
  public Budget create(String key, BudgetPolicy policy, long nowMs) {
    Budget budget = new Budget(key, policy, nowMs, nowMs, nowMs);
    budgets.put(key, budget);
    return budget;
  }

  /** Brings back a stored budget at start-up, with a full bucket (BUDGETS.md §10). */
  public Budget restore(BudgetView stored, long nowMs) {
    Budget budget = new Budget(stored.key(), stored.policy(), stored.createdAtMs(),
        stored.updatedAtMs(), nowMs);
    budgets.put(stored.key(), budget);
    return budget;
  }

  /** Replaces the policy, adjusting the live bucket (§7), then looks at its heads again. */
  public void replace(Budget budget, BudgetPolicy policy, long nowMs) {
    budget.replace(policy, nowMs);
    wake(budget, nowMs);
  }

  public void remove(Budget budget) {
    budgets.remove(budget.key());
  }

  /** Refuses a policy whose capacity is below the cost of something still committed (§8.9). */
  public void checkShrink(Budget budget, BudgetPolicy policy) {
    long capacity = policy.capacity();
    long maxCost = budget.maxUnfinishedCost();
    if (maxCost > capacity) {
      int n = budget.unfinishedCount();
      throw new SluiceException.Unprocessable("budget '" + budget.key() + "' cannot allocate "
          + capacity + ": " + n + " unfinished " + (n == 1 ? "job" : "jobs") + " draw up to "
          + maxCost + " from it. Raise the allocation, delete them, or wait for them to drain.");
    }
  }

  /** Refuses deleting a budget that unfinished jobs still draw on (§8.6). */
  public void checkUnreferenced(Budget budget) {
    int n = budget.unfinishedCount();
    if (n > 0) {
      throw new SluiceException.Conflict("budget '" + budget.key() + "' is referenced by " + n
          + " unfinished " + (n == 1 ? "job" : "jobs")
          + ". Delete them or wait for them to finish before deleting it.");
    }
  }

  public BindingPlan newPlan() {
    return new BindingPlan(this);
  }

  // ---- unfinished-job tracking ---------------------------------------------------------------

  /** The job's bindings now commit it to its budgets (enqueue, rebinding, recovery). */
  public void track(Job job) {
    for (Binding binding : job.budgets()) {
      Budget budget = budgets.get(binding.key());
      if (budget != null) {
        budget.addUnfinished(binding.cost());
      }
    }
  }

  /** The job finished, was deleted or unbound: it no longer commits its budgets. */
  public void untrack(Job job) {
    for (Binding binding : job.budgets()) {
      Budget budget = budgets.get(binding.key());
      if (budget != null) {
        budget.removeUnfinished(binding.cost());
      }
    }
  }

  // ---- parking and dispatch ------------------------------------------------------------------

  /** A bound job became ready: it waits in each of its budgets' queues. */
  public void park(Job job, long nowMs) {
    job.parked(true);
    boolean headsAny = false;
    for (Binding binding : job.budgets()) {
      Budget budget = budgets.get(binding.key());
      budget.park(job);
      headsAny |= budget.head(job.queue()) == job;
    }
    // A job queued behind others is looked at when it reaches the head; until then it is neither
    // offered nor armed, so there is nothing to do (the common case for a backlog).
    if (headsAny) {
      evaluate(job, nowMs);
    }
  }

  /** The job leaves its waiting queues (dispatched, deleted, rescheduled, rebound). */
  public void unpark(Job job, long nowMs) {
    if (!job.parked()) {
      return;
    }
    job.parked(false);
    disarm(job);
    withdraw(job);
    for (Binding binding : job.budgets()) {
      Budget budget = budgets.get(binding.key());
      boolean wasHead = budget.head(job.queue()) == job;
      budget.unpark(job);
      if (wasHead) {
        Job next = budget.head(job.queue());
        if (next != null) {
          evaluate(next, nowMs);
        }
      }
    }
  }

  /** What dispatch may do with a candidate for one worker. */
  public enum Admission {
    /** Dispatch it: its tokens are taken and it left its waiting queues. */
    ADMIT,
    /** Not this worker's: another parked job of its budget comes first in the worker's queues. */
    SKIP,
    /** Not dispatchable now for anyone: it left the ready index until its next chance. */
    DROP
  }

  /**
   * Tries to dispatch a candidate to a worker taking {@code queues} (all when null): it must head
   * one of its budgets within those queues (strict FIFO per budget, §5.2), and every budget must
   * pay its full cost now (all or nothing). On success the tokens are taken and the job leaves
   * its waiting queues; otherwise nothing is taken.
   */
  public Admission admit(Job job, Set<String> queues, long nowMs) {
    if (!job.parked() || !isHeadOfAny(job)) {
      withdraw(job);
      return Admission.DROP;
    }
    if (!isHeadOfAnyFor(job, queues)) {
      return Admission.SKIP;
    }
    for (Binding binding : job.budgets()) {
      Availability availability =
          budgets.get(binding.key()).bucket().nextAvailable(binding.cost(), nowMs);
      if (availability.kind() != Availability.Kind.NOW) {
        evaluate(job, nowMs);
        return Admission.DROP;
      }
    }
    for (Binding binding : job.budgets()) {
      Budget budget = budgets.get(binding.key());
      budget.bucket().tryAcquire(binding.cost(), nowMs);
      budget.dispatched(binding.cost());
    }
    unpark(job, nowMs);
    return Admission.ADMIT;
  }

  /** The job left flight: concurrency budgets get its tokens back, then their heads are due. */
  public void release(Job job, long nowMs) {
    for (Binding binding : job.budgets()) {
      Budget budget = budgets.get(binding.key());
      if (budget == null) {
        continue;
      }
      budget.leftFlight(binding.cost());
      if (budget.policy().type() == StrategyType.WHILE_IN_FLIGHT) {
        budget.bucket().release(binding.cost());
        wake(budget, nowMs);
      }
    }
  }

  /** The earliest armed wake-up, or {@link Long#MAX_VALUE}. */
  public long nextWakeMs() {
    return wakes.earliestMs();
  }

  /** Looks again at every head whose wake-up instant has come. */
  public void runDue(long nowMs) {
    for (Job job : wakes.pollDue(nowMs, Integer.MAX_VALUE)) {
      job.wakeAtMs(Job.NONE);
      evaluate(job, nowMs);
    }
  }

  /**
   * Something changed what the budget can pay: look again at its own heads and at every head it
   * was blocking, whichever budget those head.
   */
  private void wake(Budget budget, long nowMs) {
    List<Job> heads = new ArrayList<>(budget.takeBlockedHeads());
    for (String queue : budget.queuesWithParkedJobs()) {
      heads.add(budget.head(queue));
    }
    for (Job head : heads) {
      evaluate(head, nowMs);
    }
  }

  /** Offers an affordable head, arms a wake-up for one the drip will afford, else waits. */
  private void evaluate(Job job, long nowMs) {
    if (!job.parked() || !isHeadOfAny(job)) {
      disarm(job);
      withdraw(job);
      return;
    }
    Availability availability = Availability.NOW;
    for (Binding binding : job.budgets()) {
      Budget budget = budgets.get(binding.key());
      Availability own = budget.bucket().nextAvailable(binding.cost(), nowMs);
      if (own.kind() != Availability.Kind.NOW) {
        budget.blocks(job);
      }
      availability = availability.and(own);
    }
    switch (availability.kind()) {
      case NOW -> {
        disarm(job);
        offer(job);
      }
      case AT -> {
        withdraw(job);
        arm(job, availability.atMs());
      }
      default -> {
        withdraw(job);
        disarm(job);
      }
    }
  }

  private boolean isHeadOfAnyFor(Job job, Set<String> queues) {
    for (Binding binding : job.budgets()) {
      if (budgets.get(binding.key()).isHeadFor(job, queues)) {
        return true;
      }
    }
    return false;
  }

  private boolean isHeadOfAny(Job job) {
    for (Binding binding : job.budgets()) {
      if (budgets.get(binding.key()).head(job.queue()) == job) {
        return true;
      }
    }
    return false;
  }

  private void offer(Job job) {
    if (!job.offered()) {
      job.offered(true);
      candidates.offer(job);
    }
  }

  private void withdraw(Job job) {
    if (job.offered()) {
      job.offered(false);
      candidates.withdraw(job);
    }
  }

  private void arm(Job job, long atMs) {
    disarm(job);
    job.wakeAtMs(atMs);
    wakes.add(job);
  }

  private void disarm(Job job) {
    if (job.wakeAtMs() != Job.NONE) {
      wakes.remove(job);
      job.wakeAtMs(Job.NONE);
    }
  }
}

package io.sluice.engine;

import io.sluice.engine.budget.Budget;
import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.budget.BindingPlan;
import io.sluice.engine.budget.BudgetPolicy;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.PolicyPatch;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.budget.Pool;
import io.sluice.engine.budget.StrategyType;
import io.sluice.engine.store.Mutation;
import java.util.List;
import java.util.function.Consumer;

/**
 * The budget resource (BUDGETS.md §2, §8.1–§8.6): list, read, create, replace, patch and delete,
 * with the cap, shrink and reference guards (cron templates checked before jobs). Runs on the
 * engine thread like every command.
 */
public final class BudgetAdmin {
  private final BudgetBook book;
  /** Cron templates are standing references to budgets (BUDGETS.md §9). */
  private final CronAdmin crons;
  private final Consumer<Mutation> writes;

  BudgetAdmin(BudgetBook book, CronAdmin crons, Consumer<Mutation> writes) {
    this.book = book;
    this.crons = crons;
    this.writes = writes;
  }

  public List<BudgetView> list() {
    return book.sortedByKey().stream().map(Budget::view).toList();
  }

  public BudgetView get(String key) {
    return existing(key).view();
  }

  /** POST: creates, never overwrites. */
  public BudgetView create(String key, PolicySpec spec, long nowMs) {
    checkKey(key);
    BudgetPolicy policy = BudgetPolicy.validate(spec);
    if (book.get(key) != null) {
      throw new SluiceException.Conflict("budget '" + key + "' already exists");
    }
    book.checkRoomFor(key, 0);
    return stored(book.create(key, policy, spec.isPartitioned(), nowMs));
  }

  /** PUT: creates or replaces whole; a replacement adjusts the live bucket. */
  public BudgetView put(String key, PolicySpec spec, long nowMs) {
    checkKey(key);
    BudgetPolicy policy = BudgetPolicy.validate(spec);
    Budget budget = book.get(key);
    if (budget == null) {
      book.checkRoomFor(key, 0);
      return stored(book.create(key, policy, spec.isPartitioned(), nowMs));
    }
    checkPartitionedKept(budget, spec.isPartitioned());
    return replace(budget, policy, nowMs);
  }

  /**
   * PATCH: merges into the stored policy. A change of strategy type keeps none of the old
   * strategy's fields; the merged policy is validated whole.
   */
  public BudgetView patch(String key, PolicyPatch patch, long nowMs) {
    Budget budget = existing(key);
    if (patch.partitioned() != null) {
      checkPartitionedKept(budget, patch.partitioned());
    }
    BudgetPolicy old = budget.policy();
    String type = patch.type() != null ? patch.type() : old.type().wireName();
    boolean sameType = type.equals(old.type().wireName());
    Long durationMs = patch.durationMs();
    Long burst = patch.burst();
    if (sameType && old.type() == StrategyType.TIME_BASED) {
      durationMs = durationMs != null ? durationMs : (Long) old.durationMs();
      burst = patch.clearBurst() ? null : burst != null ? burst : old.burst();
    }
    long allocation = patch.allocation() != null ? patch.allocation() : old.allocation();
    boolean durable = patch.durable() != null ? patch.durable() : old.durable();
    BudgetPolicy policy = BudgetPolicy.validate(
        new PolicySpec(allocation, type, durationMs, burst, durable));
    return replace(budget, policy, nowMs);
  }

  /**
   * Replaces an existing budget's policy after the shrink guards. A budget that stops keeping its
   * token state (X4: durable turned off, or no longer time_based) has the stored state deleted; one
   * that starts keeping it is written at the end of the turn, like every change of it.
   */
  private BudgetView replace(Budget budget, BudgetPolicy policy, long nowMs) {
    crons.checkBudgetShrink(budget.key(), policy.capacity());
    budget.checkShrink(policy);
    boolean storedTokenState = budget.policy().storesTokenState();
    book.replace(budget, policy, nowMs);
    if (storedTokenState && !policy.storesTokenState()) {
      deleteTokenStates(budget);
    }
    return stored(budget);
  }

  /**
   * {@code POST /budgets/{key}/pause} (X6): for {@code forMs} from now, or until {@code untilMs}
   * (exactly one is given); a pause never shortens one already running. The pause is stored with
   * the budget, so it outlasts a restart.
   */
  public BudgetView pause(String key, Long forMs, Long untilMs, long nowMs) {
    Budget budget = existing(key);
    long until = forMs != null ? Completions.saturatingAdd(nowMs, forMs) : untilMs;
    book.pause(budget, until, nowMs);
    return stored(budget);
  }

  /** {@code POST /budgets/{key}/resume} (X6): ends the pause at once. */
  public BudgetView resume(String key, long nowMs) {
    Budget budget = existing(key);
    book.resume(budget, nowMs);
    return stored(budget);
  }

  /**
   * {@code POST /budgets/{key}/partitions/{partition}/pause} (X6 under X3): pauses one partition;
   * a partition not in use is made (full) to hold the pause. Returns its state.
   */
  public BudgetState pausePartition(String key, String partition, Long forMs, Long untilMs,
      long nowMs) {
    Budget budget = partitionedBudget(key, partition);
    long until = forMs != null ? Completions.saturatingAdd(nowMs, forMs) : untilMs;
    return BudgetState.ofPartition(book.pausePartition(budget, partition, until, nowMs));
  }

  /** {@code POST /budgets/{key}/partitions/{partition}/resume}: ends that partition's pause. */
  public BudgetState resumePartition(String key, String partition, long nowMs) {
    Budget budget = partitionedBudget(key, partition);
    book.resumePartition(budget, partition, nowMs);
    return partition(key, partition, nowMs);
  }

  /**
   * {@code GET /budgets/{key}/partitions/{partition}} (X3): its state, or that of a fresh, full
   * pool when the partition is not in use.
   */
  public BudgetState partition(String key, String partition, long nowMs) {
    Budget budget = partitionedBudget(key, partition);
    Pool pool = budget.poolIfHeld(partition);
    return pool != null
        ? BudgetState.ofPartition(pool)
        : BudgetState.ofFreshPartition(budget, partition, nowMs);
  }

  /**
   * {@code GET /budgets/{key}/partitions} (X3): up to {@code limit} partitions in use after
   * {@code after} (exclusive), by partition value.
   */
  public List<BudgetState> partitions(String key, String after, boolean descending, int limit) {
    Budget budget = existing(key);
    checkPartitioned(budget);
    return budget.partitionsAfter(after, descending, limit).stream()
        .map(BudgetState::ofPartition).toList();
  }

  /**
   * {@code GET /budgets/{key}/partitions?sort=waiting} (X3, for the dashboard): up to
   * {@code limit} partitions with the most waiting jobs, most first. A scan of every partition
   * held, so it is for a person looking, not for every request.
   */
  public List<BudgetState> busiestPartitions(String key, int limit) {
    Budget budget = existing(key);
    checkPartitioned(budget);
    return budget.busiestPartitions(limit).stream().map(BudgetState::ofPartition).toList();
  }

  private Budget partitionedBudget(String key, String partition) {
    Budget budget = existing(key);
    checkPartitioned(budget);
    BindingPlan.checkPartitionValue(partition);
    return budget;
  }

  private static void checkPartitioned(Budget budget) {
    if (!budget.partitioned()) {
      throw new SluiceException.Unprocessable("budget " + budget.key() + " is not partitioned");
    }
  }

  public void delete(String key) {
    Budget budget = existing(key);
    crons.checkBudgetUnreferenced(key);
    budget.checkUnreferenced();
    book.remove(budget);
    if (budget.partitioned() && budget.policy().storesTokenState()) {
      deleteTokenStates(budget); // the budget's own record goes with it
    }
    writes.accept(new Mutation.DeleteBudget(key));
  }

  /**
   * Deletes the token state records of a budget that kept them (X4): a partitioned budget's are
   * one per partition it holds (a partition's record goes when it is forgotten).
   */
  private void deleteTokenStates(Budget budget) {
    if (budget.partitioned()) {
      for (Pool pool : budget.pools()) {
        writes.accept(new Mutation.DeleteBucketState(pool.storeKey()));
      }
    } else {
      writes.accept(new Mutation.DeleteBucketState(budget.key()));
    }
  }

  /** Removes every budget (reset); callers delete the jobs that used them first. */
  void deleteAll() {
    for (Budget budget : book.sortedByKey()) {
      book.remove(budget);
      if (budget.partitioned() && budget.policy().storesTokenState()) {
        deleteTokenStates(budget);
      }
      writes.accept(new Mutation.DeleteBudget(budget.key()));
    }
  }

  /** {@code partitioned} is fixed at creation (X3). */
  private static void checkPartitionedKept(Budget budget, boolean partitioned) {
    if (budget.partitioned() != partitioned) {
      throw new SluiceException.Unprocessable("budget partitioned cannot be changed");
    }
  }

  private BudgetView stored(Budget budget) {
    BudgetView view = budget.view();
    writes.accept(new Mutation.PutBudget(view));
    return view;
  }

  private Budget existing(String key) {
    Budget budget = book.get(key);
    if (budget == null) {
      throw new SluiceException.NotFound("budget '" + key + "' not found");
    }
    return budget;
  }

  private static void checkKey(String key) {
    String violation = Names.violation("budget key", key);
    if (violation != null) {
      throw new SluiceException.Unprocessable(violation);
    }
  }
}

package io.sluice.engine.budget;

import io.sluice.engine.Names;
import io.sluice.engine.SluiceException;
import io.sluice.engine.job.Binding;
import io.sluice.engine.job.Job;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Every budget and the rules of BUDGETS.md §5–§6 that the dispatcher asks about: parking, head
 * selection, all-or-nothing payment, token release and the lazy wake-up.
 *
 * <p>Owned by the engine thread. Only the head of a budget's waiting queue (one per job queue) is
 * ever evaluated; an affordable head becomes an offer that the dispatcher collects into its ready
 * index, a head blocked by the drip arms one wake-up at the instant it becomes affordable, and
 * every budget that cannot pay remembers the head it blocks, to look at it again on its next
 * release or policy change. Nothing scans parked jobs, and unbound jobs never reach this class.
 * It never touches the ready index: an offer that went stale is turned away when the dispatcher
 * asks about it.
 */
public final class BudgetBook {
  private final Map<String, Budget> budgets = new HashMap<>();
  private final int maxBudgets;
  /** Jobs waiting in their budgets' queues. */
  private final Set<Job> parked = new HashSet<>();
  private final HeadVerdicts verdicts = new HeadVerdicts();
  private final QuietPools quietPools = new QuietPools();
  /** Buckets as they were before this turn first replaced or removed their budget, by key. */
  private Map<String, TokenBucket> replaced = new HashMap<>();
  /**
   * Pools (a plain budget's, or partitions) whose stored token state (X4) this turn changed:
   * written once at the end of the turn ({@link #takeChangedTokenStates}), however many jobs it
   * charged; a partition forgotten meanwhile has its record deleted.
   */
  private Set<Pool> tokenStateChanged = new LinkedHashSet<>();

  /** Where every change of a budget's state is published for other threads (X1). */
  private final BudgetPublisher publisher;
  /**
   * What a pool found idle is made to do, made once rather than at each turn: on C1 a capturing
   * lambda is made through method handles it does not inline.
   */
  private final Consumer<Pool> forgetQuietAction = this::forgetQuiet;

  public BudgetBook(int maxBudgets) {
    this(maxBudgets, new ConcurrentHashMap<>());
  }

  /**
   * @param published where the state of every budget is published for other threads; it outlives
   *     this book when a failed commit rebuilds the engine state ({@link #publishAll})
   */
  public BudgetBook(int maxBudgets, Map<String, BudgetState> published) {
    this.maxBudgets = maxBudgets;
    this.publisher = new BudgetPublisher(published);
  }

  /** Publishes the state of every budget changed since the last call (engine thread). */
  public void publish() {
    publisher.publish(budgets);
  }

  /** Publishes every budget and drops what an earlier book published for budgets not here. */
  public void publishAll() {
    publisher.publishAll(budgets);
  }

  // ---- the budgets themselves ----------------------------------------------------------------

  public Budget get(String key) {
    return budgets.get(key);
  }

  /**
   * The pool a binding draws on, or null when its budget is gone or its partition is not held
   * (no job of it waits or runs).
   */
  public Pool poolOf(Binding binding) {
    Budget budget = budgets.get(binding.key());
    return budget == null ? null : budget.poolIfHeld(binding.partition());
  }

  /** The pool a binding draws on, a partition's made full if it is not held. */
  private Pool poolFor(Binding binding, long nowMs) {
    return budgets.get(binding.key()).pool(binding.partition(), nowMs);
  }

  /** A pool's last job left: once idle, a partition's is forgotten (X3). */
  private void emptied(Pool pool, long nowMs) {
    if (pool.partition() != null && pool.empty()) {
      quietPools.watch(pool, nowMs);
    }
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

  /** Creates a budget with a full bucket (a partitioned one with no partition yet). */
  public Budget create(String key, BudgetPolicy policy, boolean partitioned, long nowMs) {
    Budget budget = new Budget(key, policy, partitioned, nowMs, nowMs, nowMs);
    budgets.put(key, budget);
    publisher.changed(budget);
    markTokenStateChanged(budget);
    return budget;
  }

  /**
   * Brings back a stored budget at start-up, with a full bucket (BUDGETS.md §10); a durable one
   * then takes its stored state ({@link #resumeTokenState}).
   */
  public Budget restore(BudgetView stored, long nowMs) {
    Budget budget = new Budget(stored.key(), stored.policy(), stored.partitioned(),
        stored.createdAtMs(), stored.updatedAtMs(), nowMs);
    if (stored.pausedUntilMs() != null) {
      budget.pause(stored.pausedUntilMs(), nowMs);
    }
    budgets.put(stored.key(), budget);
    publisher.changed(budget);
    return budget;
  }

  /**
   * A durable budget's stored token state (X4), after {@link #restore}: the bucket resumes from it
   * and refills for the time since. Ignored for a budget that does not keep its state.
   */
  public void resumeTokenState(String storeKey, BucketState stored, long nowMs) {
    Budget budget = budgets.get(Pool.budgetKeyOf(storeKey));
    if (budget == null || !budget.policy().storesTokenState()) {
      return;
    }
    String partition = Pool.partitionOf(storeKey);
    if (budget.partitioned() != (partition != null)) {
      return;
    }
    Pool pool = budget.pool(partition, nowMs);
    pool.bucket().resumeFrom(stored);
    publisher.changed(budget);
    emptied(pool, nowMs);
  }

  /** Replaces the policy, adjusting the live bucket (§7), then looks at its heads again. */
  public void replace(Budget budget, BudgetPolicy policy, long nowMs) {
    changeBuckets(budget, nowMs, () -> budget.replace(policy, nowMs));
  }

  /**
   * Pauses the budget until {@code untilMs}, or longer if it already is (X6): nothing bound to it
   * is dispatched and its drip stops; its heads are looked at again, to wait for the end.
   */
  public void pause(Budget budget, long untilMs, long nowMs) {
    changeBuckets(budget, nowMs, () -> budget.pause(untilMs, nowMs));
  }

  /** Ends the budget's pause at once (every partition's, for a partitioned budget). */
  public void resume(Budget budget, long nowMs) {
    changeBuckets(budget, nowMs, () -> budget.resume(nowMs));
  }

  /**
   * Applies a change to every bucket of the budget: keeps the pre-image a rollback needs, then
   * publishes the budget, marks its token state for the turn's commit and looks at its heads.
   */
  private void changeBuckets(Budget budget, long nowMs, Runnable change) {
    keepPreImage(budget);
    change.run();
    publisher.changed(budget);
    markTokenStateChanged(budget);
    wake(budget, nowMs);
  }

  /**
   * Pauses one partition of a partitioned budget (X6 under X3), held from now on until the pause
   * ends and it is idle again.
   */
  public Pool pausePartition(Budget budget, String partition, long untilMs, long nowMs) {
    Pool pool = budget.pool(partition, nowMs);
    pool.bucket().pause(untilMs, nowMs);
    markTokenStateChanged(pool);
    publisher.changed(budget);
    wake(pool, nowMs);
    emptied(pool, nowMs);
    return pool;
  }

  /** Ends one partition's own pause at once ({@link Budget#resumePartition}). */
  public void resumePartition(Budget budget, String partition, long nowMs) {
    Pool pool = budget.poolIfHeld(partition);
    if (pool == null) {
      return;
    }
    budget.resumePartition(pool, nowMs);
    markTokenStateChanged(pool);
    publisher.changed(budget);
    wake(pool, nowMs);
    emptied(pool, nowMs);
  }

  public void remove(Budget budget) {
    keepPreImage(budget);
    budgets.remove(budget.key());
    publisher.changed(budget);
  }

  /** Keeps the bucket as it was before this turn's first change of it (see {@link #takeReplaced}). */
  private void keepPreImage(Budget budget) {
    // A partitioned budget's pools are not carried over a rollback: they start full again, as
    // after a restart (docs/decisions.md).
    if (!budget.partitioned()) {
      replaced.putIfAbsent(budget.key(), budget.bucket().copy());
    }
  }

  private void markTokenStateChanged(Budget budget) {
    if (budget.policy().storesTokenState()) {
      tokenStateChanged.addAll(budget.pools());
    }
  }

  private void markTokenStateChanged(Pool pool) {
    if (pool.budget().policy().storesTokenState()) {
      tokenStateChanged.add(pool);
    }
  }

  /**
   * Hands over (and forgets) the token state of every pool that keeps it and whose state changed
   * since the last call, by {@link Pool#storeKey}, for the turn's commit batch (X4); null for a
   * partition forgotten since, whose record goes.
   */
  /** True when a durable budget's token state changed since it was last taken. */
  public boolean hasChangedTokenStates() {
    return !tokenStateChanged.isEmpty();
  }

  public Map<String, BucketState> takeChangedTokenStates() {
    if (tokenStateChanged.isEmpty()) {
      return Map.of();
    }
    Map<String, BucketState> states = new LinkedHashMap<>();
    for (Pool pool : tokenStateChanged) {
      Budget budget = pool.budget();
      if (budgets.get(budget.key()) != budget || !budget.policy().storesTokenState()) {
        continue; // deleted, or no longer keeping state: its admin change deleted the records
      }
      boolean held = budget.poolIfHeld(pool.partition()) == pool;
      states.put(pool.storeKey(), held ? pool.bucket().state() : null);
    }
    tokenStateChanged = new LinkedHashSet<>(); // a cleared table keeps its size (HeadVerdicts)
    return states;
  }


  /** Hands over (and forgets) this turn's bucket pre-images (see {@link #replace}). */
  public Map<String, TokenBucket> takeReplaced() {
    if (replaced.isEmpty()) {
      return Map.of();
    }
    Map<String, TokenBucket> taken = replaced;
    replaced = new HashMap<>();
    return taken;
  }

  /**
   * A job put back in flight after a failed commit: its budgets count its cost again. Their
   * concurrency buckets are settled once every job is back ({@link #settleConcurrencyBuckets}).
   */
  public void rehold(Job job, long nowMs) {
    for (Binding binding : job.budgets()) {
      if (budgets.get(binding.key()) != null) {
        Pool pool = poolFor(binding, nowMs);
        pool.reheld(binding.cost());
        publisher.changed(pool.budget());
      }
    }
  }

  /**
   * Gives every while_in_flight bucket the slots its budget's in-flight jobs leave free, or the
   * slots they owe beyond the allocation: the state every change of such a bucket keeps, and so
   * the one it had before the failed turns, however their releases and policy changes were
   * ordered.
   */
  public void settleConcurrencyBuckets() {
    for (Budget budget : budgets.values()) {
      if (budget.policy().type() == StrategyType.WHILE_IN_FLIGHT) {
        for (Pool pool : budget.pools()) {
          pool.bucket().holdFor(pool.inFlightCost());
        }
        publisher.changed(budget);
      }
    }
  }

  /**
   * Looks at every budget's heads again, after buckets were given another state wholesale (a
   * rollback carries them over from before the failed turns).
   */
  public void reevaluateHeads(long nowMs) {
    for (Budget budget : sortedByKey()) {
      wake(budget, nowMs);
    }
  }

  public BindingPlan newPlan() {
    return new BindingPlan(this);
  }

  // ---- unfinished-job tracking ---------------------------------------------------------------

  /** The job's bindings now commit it to its budgets (enqueue, rebinding, recovery). */
  public void track(Job job) {
    // Indexed, here and in untrack and release: on C1 a for-each over a job's bindings, most
    // often none, allocates an iterator for every job.
    List<Binding> bindings = job.budgets();
    for (int i = 0; i < bindings.size(); i++) {
      Binding binding = bindings.get(i);
      Budget budget = budgets.get(binding.key());
      if (budget != null) {
        budget.addUnfinished(binding.cost());
      }
    }
  }

  /** The job finished, was deleted or unbound: it no longer commits its budgets. */
  public void untrack(Job job) {
    List<Binding> bindings = job.budgets();
    for (int i = 0; i < bindings.size(); i++) {
      Binding binding = bindings.get(i);
      Budget budget = budgets.get(binding.key());
      if (budget != null) {
        budget.removeUnfinished(binding.cost());
      }
    }
  }

  // ---- parking and dispatch ------------------------------------------------------------------

  /** A bound job became ready: it waits in each of its budgets' queues. */
  public void park(Job job, long nowMs) {
    parked.add(job);
    boolean headsAny = false;
    for (Binding binding : job.budgets()) {
      Pool pool = poolFor(binding, nowMs);
      pool.park(job, binding.cost());
      publisher.changed(pool.budget());
      headsAny |= pool.head(job.queue()) == job;
    }
    // A job queued behind others is looked at when it reaches the head; until then it is neither
    // offered nor armed, so there is nothing to do (the common case for a backlog).
    if (headsAny) {
      evaluate(job, nowMs);
    }
  }

  /** The job leaves its waiting queues (dispatched, deleted, rescheduled, rebound). */
  public void unpark(Job job, long nowMs) {
    if (!parked.remove(job)) {
      return;
    }
    verdicts.forget(job);
    for (Binding binding : job.budgets()) {
      Pool pool = poolOf(binding);
      boolean wasHead = pool.head(job.queue()) == job;
      pool.unpark(job, binding.cost());
      pool.unblocks(job);
      publisher.changed(pool.budget());
      if (wasHead) {
        Job next = pool.head(job.queue());
        if (next != null) {
          evaluate(next, nowMs);
        }
      }
      emptied(pool, nowMs);
    }
  }

  public boolean isParked(Job job) {
    return parked.contains(job);
  }

  /** True when heads became able to pay since {@link #takeOffers} last ran. */
  public boolean hasOffers() {
    return verdicts.hasOffers();
  }

  /** The heads found able to pay and not collected yet (a copy). */
  public List<Job> pendingOffers() {
    return verdicts.pendingOffers();
  }

  /** Hands over (and forgets) the heads found able to pay, for the dispatcher's ready index. */
  public List<Job> takeOffers() {
    return verdicts.takeOffers();
  }

  /** What dispatch may do with a candidate for one worker. */
  public enum Admission {
    /** Its budgets can pay now: dispatch it, after {@link #charge}. */
    ADMIT,
    /** Not this worker's: another parked job of its budget comes first in the worker's queues. */
    SKIP,
    /** Not dispatchable now for anyone: drop it from the candidates until its next offer. */
    DROP
  }

  /**
   * Whether a candidate may go to a worker taking {@code queues} (all when null): it must head
   * one of its budgets within those queues (strict FIFO per budget, §5.2), and every budget must
   * be able to pay its full cost now (all or nothing). Takes nothing; a head the drip will afford
   * later is armed for that instant.
   */
  public Admission admission(Job job, Set<String> queues, long nowMs) {
    if (!parked.contains(job) || !isHeadOfAny(job)) {
      return Admission.DROP;
    }
    if (!isHeadOfAnyFor(job, queues)) {
      return Admission.SKIP;
    }
    if (!allPayNow(job, nowMs)) {
      evaluate(job, nowMs);
      return Admission.DROP;
    }
    return Admission.ADMIT;
  }

  /**
   * Takes an admitted job's tokens from every budget; it leaves its waiting queues. Returns true
   * when one of those budgets keeps its token state (X4): the job must not reach its worker before
   * that state is committed.
   */
  public boolean charge(Job job, long nowMs) {
    boolean chargedStoredState = false;
    for (Binding binding : job.budgets()) {
      Pool pool = poolOf(binding);
      Budget budget = pool.budget();
      pool.bucket().tryAcquire(binding.cost(), nowMs);
      pool.dispatched(binding.cost());
      publisher.changed(budget);
      if (budget.policy().storesTokenState()) {
        tokenStateChanged.add(pool);
        chargedStoredState = true;
      }
    }
    unpark(job, nowMs);
    return chargedStoredState;
  }

  /** The job left flight: concurrency budgets get its tokens back, then their heads are due. */
  public void release(Job job, long nowMs) {
    List<Binding> bindings = job.budgets();
    for (int i = 0; i < bindings.size(); i++) {
      Binding binding = bindings.get(i);
      Pool pool = poolOf(binding);
      if (pool == null) {
        continue;
      }
      pool.leftFlight(binding.cost());
      publisher.changed(pool.budget());
      if (pool.budget().policy().type() == StrategyType.WHILE_IN_FLIGHT) {
        pool.bucket().release(binding.cost());
        wake(pool, nowMs);
      }
      emptied(pool, nowMs);
    }
  }

  /**
   * What the job really cost on one of its budgets, reported at acknowledgement (X5): a rate
   * budget takes the difference from what the binding paid at dispatch, or refunds it; a
   * concurrency budget holds the binding's cost until the job leaves flight, whatever it cost.
   */
  public void settle(Binding binding, long actual, long nowMs) {
    Pool pool = poolOf(binding);
    if (pool == null || pool.budget().policy().type() != StrategyType.TIME_BASED) {
      return;
    }
    Budget budget = pool.budget();
    keepPreImage(budget);
    pool.bucket().settle(actual - binding.cost(), nowMs);
    markTokenStateChanged(pool);
    publisher.changed(budget);
    wake(pool, nowMs);
  }

  /** Every armed head with the instant it is looked at again (a copy). */
  public Map<Job, Long> armedWakes() {
    return verdicts.armed();
  }

  /** True when the job is a parked head that its budgets can pay for now. */
  public boolean canPayNow(Job job, long nowMs) {
    return parked.contains(job) && isHeadOfAny(job) && allPayNow(job, nowMs);
  }

  /** Every budget of the job can pay its cost now (all or nothing, nothing taken). */
  private boolean allPayNow(Job job, long nowMs) {
    for (Binding binding : job.budgets()) {
      Availability availability =
          poolOf(binding).bucket().nextAvailable(binding.cost(), nowMs);
      if (availability.kind() != Availability.Kind.NOW) {
        return false;
      }
    }
    return true;
  }

  /**
   * The earliest armed wake-up or look at a quiet partition (so an idle one is forgotten on
   * time even on a quiet server), or {@link Long#MAX_VALUE}.
   */
  public long nextWakeMs() {
    return Math.min(verdicts.nextWakeMs(), quietPools.nextDueMs());
  }

  /** Looks again at every head whose wake-up instant has come. */
  public void runDue(long nowMs) {
    // Indexed: asked at every engine turn, and on C1 an iterator is an allocation.
    List<Job> due = verdicts.takeDue(nowMs);
    for (int i = 0; i < due.size(); i++) {
      evaluate(due.get(i), nowMs);
    }
    quietPools.forgetIdle(nowMs, forgetQuietAction);
  }

  private void forgetQuiet(Pool pool) {
    publisher.changed(pool.budget());
    markTokenStateChanged(pool);
  }

  /**
   * Something changed what the budget can pay: look again at its own heads and at every head it
   * was blocking, whichever budget those head.
   */
  private void wake(Budget budget, long nowMs) {
    for (Pool pool : budget.pools()) {
      wake(pool, nowMs);
    }
  }

  /** The same for one pool. */
  private void wake(Pool pool, long nowMs) {
    List<Job> heads = new ArrayList<>(pool.takeBlockedHeads());
    for (String queue : pool.queuesWithParkedJobs()) {
      heads.add(pool.head(queue));
    }
    for (Job head : heads) {
      evaluate(head, nowMs);
    }
  }

  /** Offers an affordable head, arms a wake-up for one the drip will afford, else waits. */
  private void evaluate(Job job, long nowMs) {
    if (!parked.contains(job) || !isHeadOfAny(job)) {
      verdicts.forget(job);
      return;
    }
    Availability availability = Availability.NOW;
    for (Binding binding : job.budgets()) {
      Pool pool = poolOf(binding);
      Availability own = pool.bucket().nextAvailable(binding.cost(), nowMs);
      if (own.kind() != Availability.Kind.NOW) {
        pool.blocks(job);
        pool.budget().throttled();
        publisher.changed(pool.budget());
      }
      availability = availability.and(own);
    }
    switch (availability.kind()) {
      case NOW -> verdicts.offer(job);
      case AT -> verdicts.arm(job, availability.atMs());
      default -> verdicts.forget(job);
    }
  }

  private boolean isHeadOfAnyFor(Job job, Set<String> queues) {
    for (Binding binding : job.budgets()) {
      if (poolOf(binding).isHeadFor(job, queues)) {
        return true;
      }
    }
    return false;
  }

  private boolean isHeadOfAny(Job job) {
    for (Binding binding : job.budgets()) {
      if (poolOf(binding).head(job.queue()) == job) {
        return true;
      }
    }
    return false;
  }
}

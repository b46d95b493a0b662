package io.sluice.engine.property;

import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.SluiceException;
import io.sluice.engine.Turn;
import io.sluice.engine.job.Binding;
import io.sluice.engine.budget.BudgetState;
import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.PolicyPatch;
import io.sluice.engine.budget.Settlement;
import io.sluice.engine.dispatch.JobSink;
import io.sluice.engine.dispatch.WorkerSession;
import io.sluice.engine.job.FailureReport;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.job.Throttle;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.MemoryJobStore;
import io.sluice.engine.property.Ops.Op;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Drives one random scenario through a real {@link Engine} on a hand-advanced clock, the way
 * {@code EngineLoop} runs a turn (command, {@code runDue}, take the turn, {@code committed},
 * {@code dispatch}), and checks DESIGN.md's budget invariants 1–6 after every turn against a
 * model kept from the outside: which jobs are ready, scheduled or in flight (and where), and every
 * budget's policy and token state as BUDGETS.md §3/§7 define it ({@link SpecBucket}).
 *
 * <p>Checks, in the words of DESIGN.md "Invariants":
 *
 * <ol>
 *   <li>while_in_flight: after a dispatch on a budget, the in-flight cost bound to it is at most
 *       its allocation (so after a lowering nothing is dispatched on it until the sum is under
 *       the new allocation). Exempt, explicitly and only, while jobs that were in flight when
 *       the budget was switched from time_based are still in flight: BUDGETS.md §7 carries no
 *       debt across a switch (see {@link Budget#carriesSwitchOvershoot}).
 *   <li>time_based: over every window ending at a dispatch, the cost dispatched is at most
 *       {@code capacity + allocation * w / duration_ms}, counted from the budget's last creation or
 *       policy change (§7 adjusts the bucket without resetting it).
 *   <li>a dispatched job's budgets all exist and could all pay (the model bucket must be able to
 *       acquire every cost), and it heads at least one of them for its worker (strict FIFO, §5.2:
 *       a budget's head for a worker taking queues Q is its best ready job in Q).
 *   <li>after a dispatch pass, a worker with a free slot (and room under the global limit) leaves
 *       no unbound ready job of its queues behind.
 *   <li>likewise no ready job of its queues that heads one of its budgets for that worker and
 *       that every budget can pay now; and no worker got a job worse by (priority, id) than one
 *       that was dispatchable to it throughout the pass. {@link #advance} also stops at every
 *       instant the model says a drip makes a head affordable, so a late wake-up is seen.
 *   <li>no job is delivered while already in flight; acks/fails of jobs not in flight and
 *       repeated disconnects are refused or do nothing; at the end, once every worker has
 *       disconnected, each while_in_flight budget dispatches exactly as many cost-1 probe jobs at
 *       once as the model says it holds (its whole allocation unless a §7 strategy switch cost it
 *       tokens).
 * </ol>
 *
 * <p>A partitioned budget (X3) is a pool per partition value: invariants 1–3 and 5 hold per pool,
 * heads and strict FIFO are per pool, payment is all or nothing over every pool of a job; the
 * budget's X1 state has no tokens or debt and sums its pools, each partition's state matches
 * the model's pool (a fresh one when not held), and the engine forgets only idle partitions.
 * With restarts (X4) every turn is committed to a store that a fresh engine recovers from.
 *
 * <p>Budget administration outcomes (refusals by the shrink guard, the reference guard, merge-patch
 * validation) are predicted by the model and compared with what the engine answered.
 */
final class EngineScenario {
  static final long START_MS = 1_750_000_000_000L;
  private static final byte[] PAYLOAD = "{}".getBytes(StandardCharsets.UTF_8);
  private static final Comparator<Job> ORDER =
      Comparator.comparingInt((Job j) -> j.priority).thenComparing(j -> j.id);

  private final EngineConfig config;
  /** Every turn is committed here; a restart recovers a fresh engine from it. */
  private MemoryJobStore store = new MemoryJobStore();
  private Engine engine;
  private final int globalLimit;
  private final JobIdGenerator ids = new JobIdGenerator();
  private final StringBuilder log = new StringBuilder();
  private long now = START_MS;
  private int step;
  private int jobSeq;
  private int workerSeq;

  private final Map<String, Budget> budgets = new TreeMap<>();
  /** Unfinished jobs (scheduled, ready or in flight), in creation order. */
  private final Map<JobId, Job> jobs = new LinkedHashMap<>();
  private final Map<JobId, String> names = new HashMap<>();
  private final List<JobId> finished = new ArrayList<>();
  private final List<Worker> openWorkers = new ArrayList<>();
  private final List<Worker> closedWorkers = new ArrayList<>();

  /** Statistics, for the property's report. */
  int dispatches;
  int refusals;
  int ticks;
  int throttles;
  int restarts;

  /** @param globalLimit the engine's global in-flight limit; 0 means unlimited */
  EngineScenario(int globalLimit) {
    EngineConfig d = EngineConfig.defaults();
    // Only the scheduler batch differs from the defaults: promoting every due job in one turn
    // keeps "ready" in the model equal to "due", whatever the backlog.
    this.config = new EngineConfig(d.defaultRetryLimit(), d.defaultBackoff(),
        d.defaultCompletedRetentionMs(), d.defaultDeadRetentionMs(), globalLimit,
        d.reaperIntervalMs(), 1_000_000, d.payloadCacheBytes(), d.maxBudgets());
    this.engine = new Engine(config);
    this.globalLimit = globalLimit;
  }

  // ---- model types ---------------------------------------------------------------------------

  enum State {
    SCHEDULED,
    READY,
    IN_FLIGHT
  }

  static final class Job {
    final JobId id;
    final String name;
    final String queue;
    final int priority;
    final List<Binding> bindings;
    State state;
    long readyAtMs;
    int attempts;
    Worker holder;

    Job(JobId id, String name, String queue, int priority, List<Binding> bindings) {
      this.id = id;
      this.name = name;
      this.queue = queue;
      this.priority = priority;
      this.bindings = bindings;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * One budget: its policy and its pools. A plain budget has one pool (under the partition
   * {@code ""} here); a partitioned one (X3) a pool per partition value, made full on first use
   * (paused if the whole budget is). A partition the engine forgot is forgotten here too, once
   * checked to be idle ({@link #syncPartitions}): whether a pool is still held is visible (a §7
   * raise of the capacity leaves a held full pool at its old capacity, a fresh one is full).
   */
  final class Budget {
    final String key;
    ModelPolicy policy;
    final boolean partitioned;
    /** Dispatches charged to this budget (any pool) since it was created or the server started. */
    long dispatched;
    /** A pause of the whole partitioned budget, which pools made during it share (X6). */
    long pausedUntilMs = Long.MIN_VALUE;
    final Map<String, Pool> pools = new TreeMap<>();

    Budget(String key, ModelPolicy policy) {
      this.key = key;
      this.policy = policy;
      this.partitioned = policy.partitioned();
    }

    /** The pool of {@code partition} as a read sees it: held, or a fresh one (not kept). */
    Pool peek(String partition) {
      Pool held = pools.get(partition == null ? "" : partition);
      if (held != null) {
        return held;
      }
      Pool fresh = new Pool(this, partition);
      if (pausedUntilMs != Long.MIN_VALUE) {
        fresh.bucket.pause(pausedUntilMs, now);
      }
      return fresh;
    }

    /** The pool of {@code partition} (null for a plain budget), made full on first use. */
    Pool pool(String partition) {
      return pools.computeIfAbsent(partition == null ? "" : partition, p -> {
        Pool pool = new Pool(this, partition);
        if (pausedUntilMs != Long.MIN_VALUE) {
          pool.bucket.pause(pausedUntilMs, now);
        }
        return pool;
      });
    }

    long inFlightCost() {
      return pools.values().stream().mapToLong(p -> p.inFlightCost).sum();
    }

    void pause(long untilMs) {
      if (partitioned) {
        pausedUntilMs = Math.max(pausedUntilMs, untilMs);
      } else {
        pool(null);
      }
      pools.values().forEach(p -> p.bucket.pause(untilMs, now));
    }

    void resume() {
      pausedUntilMs = Long.MIN_VALUE;
      pools.values().forEach(p -> p.bucket.resume(now));
    }

    boolean paused() {
      return now < pausedUntilMs || pools.values().stream().anyMatch(p -> p.bucket.paused(now));
    }

    /**
     * A new process: nothing in flight, counts from zero, full pools unless durable (X4). A plain
     * budget's pause is stored with it; a partitioned one keeps only its budget-wide pause (a
     * partition's own pause is not stored, and a durable partition resumes from its T, K, D, L).
     */
    void restarted() {
      dispatched = 0;
      if (!policy.keepsTokenState()) {
        Long plainPause = !partitioned && pools.containsKey("") && pool(null).bucket.paused(now)
            ? pool(null).bucket.pausedUntilMs() : null;
        pools.clear();
        if (plainPause != null) {
          pool(null).bucket.pause(plainPause, now);
        }
        return;
      }
      for (Pool pool : pools.values()) {
        pool.inFlightCost = 0;
        pool.carriesSwitchOvershoot = false;
        pool.loweredBelowInFlight = false;
        if (partitioned) {
          pool.bucket.restartPause(pausedUntilMs);
        }
      }
    }

    void adopt(ModelPolicy newPolicy) {
      for (Pool pool : pools.values()) {
        pool.adopt(newPolicy);
      }
      policy = newPolicy;
    }

    @Override
    public String toString() {
      return key + " " + policy + (partitioned ? "" : " " + pool(null))
          + (now < pausedUntilMs ? " paused until " + (pausedUntilMs - START_MS) : "")
          + (partitioned ? pools.values().stream().map(p -> "\n  [" + p.partition + "] " + p)
              .collect(Collectors.joining()) : "");
    }
  }

  /** One pool of a budget: the whole of a plain one, or one partition (X3). */
  final class Pool {
    final Budget budget;
    /** Null for a plain budget's pool. */
    final String partition;
    SpecBucket bucket;
    /** Summed cost of the in-flight jobs bound to this pool. */
    long inFlightCost;
    /**
     * (instant, cost) of every dispatch since the budget was created or last changed, and, unless
     * it is durable, since the server last started.
     */
    final List<long[]> dispatchesSinceChange = new ArrayList<>();
    /**
     * True from a §7 switch time_based → while_in_flight made while jobs bound to it were in
     * flight, until nothing bound to it is in flight: those jobs paid the rate bucket, the new
     * concurrency bucket carries only {@code min(T, C)} and no debt, and their completions credit
     * it, so BUDGETS.md itself lets the in-flight sum exceed the allocation meanwhile.
     */
    boolean carriesSwitchOvershoot;
    /** True once a §7 switch to while_in_flight happened: the bucket may hold less than C. */
    boolean switchedFromRate;
    /** The in-flight sum may exceed the allocation: it was lowered below it, no dispatch since. */
    boolean loweredBelowInFlight;

    Pool(Budget budget, String partition) {
      this.budget = budget;
      this.partition = partition;
      this.bucket = new SpecBucket(budget.policy, now);
    }

    ModelPolicy policy() {
      return budget.policy;
    }

    /** The budget key, with the partition in brackets for a partitioned budget's pool. */
    String name() {
      return partition == null ? budget.key : budget.key + "[" + partition + "]";
    }

    void adopt(ModelPolicy newPolicy) {
      boolean fromRate = budget.policy.timeBased();
      bucket.adopt(newPolicy, now, inFlightCost);
      dispatchesSinceChange.clear();
      if (newPolicy.timeBased()) {
        carriesSwitchOvershoot = false;
      } else {
        carriesSwitchOvershoot = (carriesSwitchOvershoot || fromRate) && inFlightCost > 0;
        switchedFromRate |= fromRate;
        loweredBelowInFlight = inFlightCost > newPolicy.allocation();
      }
    }

    @Override
    public String toString() {
      return bucket + " inflight=" + inFlightCost;
    }
  }

  private Pool poolOf(Binding binding) {
    return budgets.get(binding.key()).pool(binding.partition());
  }

  private static String poolName(Binding binding) {
    return binding.partition() == null ? binding.key()
        : binding.key() + "[" + binding.partition() + "]";
  }

  final class Worker implements JobSink {
    final String name;
    final Set<String> queues;
    final int prefetch;
    final List<JobSnapshot> inbox = new ArrayList<>();
    final Set<JobId> holding = new LinkedHashSet<>();
    WorkerSession session;

    Worker(String name, Set<String> queues, int prefetch) {
      this.name = name;
      this.queues = queues;
      this.prefetch = prefetch;
    }

    @Override
    public void deliver(List<JobSnapshot> delivered) {
      inbox.addAll(delivered);
    }

    boolean takes(String queue) {
      return queues == null || queues.contains(queue);
    }

    boolean hasFreeSlot() {
      int limit = prefetch == 0 ? Engine.unlimitedPrefetchCap(globalLimit) : prefetch;
      return holding.size() < limit;
    }

    @Override
    public String toString() {
      return name + "{" + (queues == null ? "*" : String.join(",", new TreeSet<>(queues)))
          + " prefetch " + prefetch + "}";
    }
  }

  /** An invariant broke; the runner adds the operation log. */
  static final class Violation extends AssertionError {
    Violation(String message) {
      super(message);
    }
  }

  // ---- running -------------------------------------------------------------------------------

  /** Runs the operations, then the end-of-scenario drain (invariant 6); throws on a violation. */
  void run(List<Op> ops) {
    try {
      for (Op op : ops) {
        step++;
        apply(op);
        turn();
      }
      step++;
      finale();
    } catch (Violation | RuntimeException e) {
      throw new AssertionError(describe(e), e);
    }
  }

  private String describe(Throwable e) {
    String what =
        e instanceof Violation ? "" : "engine threw " + e.getClass().getSimpleName() + ": ";
    return what + e.getMessage() + "\n\n--- operation log (t = ms since start; "
        + "'<-' = delivered to a worker) ---\n" + log + "--- budgets now ---\n"
        + budgets.values().stream().map(Budget::toString).collect(Collectors.joining("\n"))
        + "\n";
  }

  private void logStep(String text) {
    log.append(String.format("#%-3d t=%-8d %s%n", step, now - START_MS, text));
  }

  private void logDetail(String text) {
    log.append(String.format("     t=%-8d   %s%n", now - START_MS, text));
  }

  private static void check(boolean ok, Supplier<String> message) {
    if (!ok) {
      throw new Violation(message.get());
    }
  }

  private static String key(int index) {
    return "b" + index;
  }

  private static String partition(int index) {
    return "p" + index;
  }

  private static String queue(int index) {
    return "q" + index;
  }

  private void apply(Op op) {
    if (op instanceof Ops.PutBudget put) {
      putBudget(key(put.key()), put.policy());
    } else if (op instanceof Ops.CreateBudget create) {
      createBudget(key(create.key()), create.policy());
    } else if (op instanceof Ops.PatchBudget patch) {
      patchBudget(patch);
    } else if (op instanceof Ops.DeleteBudget delete) {
      deleteBudget(key(delete.key()));
    } else if (op instanceof Ops.Enqueue enqueue) {
      enqueue(enqueue.jobs());
    } else if (op instanceof Ops.OpenWorker open) {
      openWorker(open.queueMask(), open.prefetch());
    } else if (op instanceof Ops.Ack ack) {
      ack(ack.pick(), ack.stale());
    } else if (op instanceof Ops.Settle settle) {
      settle(settle.pick(), settle.actualRaw());
    } else if (op instanceof Ops.Fail fail) {
      fail(fail.pick(), fail.kind(), fail.delayMs());
    } else if (op instanceof Ops.CloseWorker close) {
      closeWorker(close.pick(), close.again());
    } else if (op instanceof Ops.Advance advance) {
      advance(advance.ms());
    } else if (op instanceof Ops.PauseBudget pause) {
      pauseBudget(key(pause.key()), pause.forMs());
    } else if (op instanceof Ops.Throttle throttle) {
      throttle(throttle.pick(), throttle.binding(), throttle.retryAfterMs());
    } else if (op instanceof Ops.PausePartition pause) {
      pausePartition(key(pause.key()), partition(pause.partition()), pause.forMs());
    } else if (op instanceof Ops.Restart) {
      restart();
    } else {
      throw new IllegalArgumentException("unknown operation " + op);
    }
  }

  // ---- one engine turn, and the checks after it ----------------------------------------------

  /** What {@code EngineLoop} does after applying a turn's commands. */
  private void turn() {
    engine.runDue(now);
    Turn turn = engine.takeTurn();
    store.commit(new CommitBatch(turn.mutations(), false));
    engine.committed(turn.newJobs(), now);
    for (Job job : jobs.values()) {
      if (job.state == State.SCHEDULED && job.readyAtMs <= now) {
        job.state = State.READY;
      }
    }
    syncPartitions();
    Map<Worker, Set<JobId>> dispatchableAtStart = new HashMap<>();
    for (Worker worker : openWorkers) {
      Set<JobId> dispatchable = new HashSet<>();
      Map<String, Job> heads = heads(worker.queues);
      for (Job job : jobs.values()) {
        if (job.state == State.READY && worker.takes(job.queue)
            && (job.bindings.isEmpty() || !headedBudgets(job, heads).isEmpty())) {
          dispatchable.add(job.id);
        }
      }
      dispatchableAtStart.put(worker, dispatchable);
    }
    engine.dispatch(now);
    if (engine.awaitsCommit()) {
      // Jobs charged to durable budgets go out once the turn storing their state is committed.
      Turn stateTurn = engine.takeTurn();
      store.commit(new CommitBatch(stateTurn.mutations(), false));
      engine.deliverCommitted(stateTurn);
    }
    Map<Worker, List<Job>> received = takeDeliveries();
    checkAfterPass(received, dispatchableAtStart);
    checkPublishedState();
    long next = engine.nextDeadlineMs();
    check(next > now, () -> "engine's next deadline " + (next - START_MS)
        + " is not after now: its loop would spin instead of sleeping");
  }

  private Map<Worker, List<Job>> takeDeliveries() {
    for (Worker closed : closedWorkers) {
      check(closed.inbox.isEmpty(), () -> "closed worker " + closed.name + " was sent "
          + closed.inbox.size() + " job(s)");
    }
    List<Object[]> pending = new ArrayList<>();
    for (Worker worker : openWorkers) {
      for (JobSnapshot snapshot : worker.inbox) {
        pending.add(new Object[] {worker, snapshot});
      }
      worker.inbox.clear();
    }
    Map<Worker, List<Job>> received = new LinkedHashMap<>();
    Set<Pool> dispatchedOn = new LinkedHashSet<>();
    // A pass adds no ready job and frees no token, so heads only appear; deliveries can be taken
    // in any order in which each one heads a budget when taken (greedy finds one if any exists).
    while (!pending.isEmpty()) {
      Object[] next = null;
      for (Object[] candidate : pending) {
        Job job = jobs.get(((JobSnapshot) candidate[1]).id());
        if (job == null || job.state != State.READY || job.bindings.isEmpty()
            || !headedBudgets(job, heads(((Worker) candidate[0]).queues)).isEmpty()) {
          next = candidate;
          break;
        }
      }
      if (next == null) {
        String detail = pending.stream().map(p -> {
          Worker worker = (Worker) p[0];
          Job job = jobs.get(((JobSnapshot) p[1]).id());
          Map<String, Job> heads = heads(worker.queues);
          return job + " " + job.bindings + " to " + worker + ", heads there: " + job.bindings
              .stream().map(b -> poolName(b) + "→" + heads.get(poolName(b))).toList();
        }).collect(Collectors.joining("; "));
        throw new Violation("invariant 3 / §5.2 strict FIFO: delivered job(s) that head none of "
            + "their budgets among the worker's queues: " + detail);
      }
      pending.remove(next);
      Worker worker = (Worker) next[0];
      Job job = deliver(worker, (JobSnapshot) next[1], dispatchedOn);
      received.computeIfAbsent(worker, w -> new ArrayList<>()).add(job);
    }
    for (Map.Entry<Worker, List<Job>> e : received.entrySet()) {
      logDetail(e.getKey().name + " <- " + e.getValue());
    }
    for (Pool pool : dispatchedOn) {
      if (!pool.policy().timeBased() && !pool.carriesSwitchOvershoot) {
        check(pool.inFlightCost <= pool.policy().allocation(), () -> "invariant 1: "
            + "while_in_flight budget " + pool.name() + " " + pool.policy()
            + " now has in-flight cost " + pool.inFlightCost + " after dispatching on it");
      }
    }
    return received;
  }

  private Job deliver(Worker worker, JobSnapshot snapshot, Set<Pool> dispatchedOn) {
    Job job = jobs.get(snapshot.id());
    String name = names.getOrDefault(snapshot.id(), snapshot.id().toString());
    check(job != null, () -> "delivered " + name + " to " + worker.name
        + ", but it is finished or unknown");
    check(job.state != State.IN_FLIGHT, () -> "invariant 6: delivered " + name + " to "
        + worker.name + " while it is still in flight at " + job.holder.name);
    check(job.state == State.READY, () -> "delivered " + name + " to " + worker.name
        + " though it is scheduled until " + (job.readyAtMs - START_MS));
    check(worker.takes(job.queue), () -> "delivered " + name + " of queue " + job.queue
        + " to " + worker + ", which does not take that queue");
    check(worker.hasFreeSlot(), () -> "delivered " + name + " to " + worker
        + " though it already holds " + worker.holding.size());
    check(snapshot.status() == JobStatus.IN_FLIGHT, () -> "delivered " + name + " with status "
        + snapshot.status());
    check(snapshot.budgets().equals(job.bindings), () -> "delivered " + name + " with bindings "
        + snapshot.budgets() + ", enqueued with " + job.bindings);
    for (Binding binding : job.bindings) {
      Budget budget = budgets.get(binding.key());
      check(budget != null, () -> "invariant 3: delivered " + name + " bound to budget "
          + binding.key() + ", which does not exist");
    }
    for (Binding binding : job.bindings) {
      Pool pool = poolOf(binding);
      long before = pool.bucket.available(now);
      check(pool.bucket.acquire(binding.cost(), now), () -> "invariant 3: delivered " + name
          + " " + job.bindings + " though budget " + pool.name() + " " + pool.policy()
          + " could not pay " + binding.cost() + " (holds " + before + ", in-flight cost "
          + pool.inFlightCost + (pool.bucket.paused(now) ? ", paused" : "") + ")");
      pool.inFlightCost += binding.cost();
      pool.budget.dispatched++;
      dispatchedOn.add(pool);
      if (pool.policy().timeBased()) {
        pool.dispatchesSinceChange.add(new long[] {now, binding.cost()});
        checkRate(pool, name);
      }
    }
    job.state = State.IN_FLIGHT;
    job.holder = worker;
    worker.holding.add(job.id);
    dispatches++;
    return job;
  }

  /** Invariant 2 over every window that ends now and starts at an earlier dispatch. */
  private void checkRate(Pool pool, String name) {
    ModelPolicy p = pool.policy();
    List<long[]> history = pool.dispatchesSinceChange;
    long sum = 0;
    for (int i = history.size() - 1; i >= 0; i--) {
      sum += history.get(i)[1];
      long windowMs = now - history.get(i)[0];
      // sum <= C + a * w / d  ⇔  sum * d <= C * d + a * w
      if (sum * p.durationMs() > p.capacity() * p.durationMs() + p.allocation() * windowMs) {
        long total = sum;
        throw new Violation("invariant 2: time_based budget " + pool.name() + " " + p
            + " dispatched cost " + total + " within " + windowMs + " ms (ending with " + name
            + "), more than " + p.capacity() + " + " + p.allocation() + " × " + windowMs + " / "
            + p.durationMs());
      }
    }
  }

  /**
   * X1: every budget's published state agrees with a recount from the model's jobs and its
   * bucket; a partitioned budget as a whole has no tokens or debt and sums its partitions, holds
   * at least every partition that is not idle, and each partition value (held or not) reads as the
   * model's pool of it.
   */
  private void checkPublishedState() {
    Map<String, BudgetState> published = engine.budgetStates();
    check(published.keySet().equals(budgets.keySet()), () -> "X1: published budgets "
        + published.keySet() + ", the model holds " + budgets.keySet());
    for (Budget budget : budgets.values()) {
      BudgetState state = published.get(budget.key);
      String recount = recount(budget, null, budget.partitioned ? null : budget.pool(null))
          + ", dispatched " + budget.dispatched;
      String read = read(state) + ", dispatched " + state.dispatched();
      check(recount.equals(read), () -> "X1: budget " + budget.key + " publishes " + read
          + "; a recount gives " + recount);
      if (!budget.partitioned) {
        continue;
      }
      check(state.partitions() == budget.pools.size(), () -> "X1: partitioned budget "
          + budget.key + " counts " + state.partitions() + " partitions, it holds "
          + budget.pools.keySet());
      for (int i = 0; i < Ops.PARTITIONS; i++) {
        String partition = partition(i);
        BudgetState one = engine.budgetAdmin().partition(budget.key, partition, now);
        String expected = recount(budget, partition, budget.peek(partition));
        String got = read(one);
        check(expected.equals(got), () -> "X1: partition " + partition + " of budget "
            + budget.key + " reads " + got + "; the model's pool gives " + expected);
      }
    }
  }

  /** The jobs of {@code budget} (of one partition, unless null) counted, and the pool's state. */
  private String recount(Budget budget, String partition, Pool pool) {
    long waitingJobs = 0;
    long waitingCost = 0;
    long inFlightJobs = 0;
    long inFlightCost = 0;
    for (Job job : jobs.values()) {
      for (Binding binding : job.bindings) {
        if (!binding.key().equals(budget.key)
            || (partition != null && !partition.equals(binding.partition()))) {
          continue;
        }
        if (job.state == State.READY) {
          waitingJobs++;
          waitingCost += binding.cost();
        } else if (job.state == State.IN_FLIGHT) {
          inFlightJobs++;
          inFlightCost += binding.cost();
        }
      }
    }
    Long pausedUntil = pool == null ? (now < budget.pausedUntilMs ? budget.pausedUntilMs : null)
        : pool.bucket.paused(now) ? (Long) pool.bucket.pausedUntilMs() : null;
    return "waiting " + waitingJobs + "/" + waitingCost + ", in flight " + inFlightJobs + "/"
        + inFlightCost + ", tokens " + (pool == null ? null : pool.bucket.available(now))
        + ", debt " + (pool == null ? null : pool.bucket.debtAt(now))
        + ", paused until " + pausedUntil;
  }

  private String read(BudgetState state) {
    return "waiting " + state.waitingJobs() + "/" + state.waitingCost() + ", in flight "
        + state.inFlightJobs() + "/" + state.inFlightCost() + ", tokens " + state.tokensAt(now)
        + ", debt " + state.debtAt(now) + ", paused until " + state.pausedUntilMs(now);
  }

  /**
   * X3: the partitions the engine holds after {@code runDue} are the model's, less those it
   * forgot, and it forgets only idle ones; the model forgets them too.
   */
  private void syncPartitions() {
    for (Job job : jobs.values()) {
      if (job.state != State.SCHEDULED) {
        job.bindings.forEach(this::poolOf); // the engine makes a pool when a job parks on it
      }
    }
    for (Budget budget : budgets.values()) {
      if (!budget.partitioned) {
        continue;
      }
      Set<String> held = new TreeSet<>();
      engine.budgetAdmin().partitions(budget.key, null, false, 1_000)
          .forEach(state -> held.add(state.partition()));
      for (String partition : held) {
        check(budget.pools.containsKey(partition), () -> "X3: budget " + budget.key
            + " holds partition " + partition + ", which nothing used");
      }
      for (Pool pool : List.copyOf(budget.pools.values())) {
        if (!held.contains(pool.partition)) {
          check(idle(pool), () -> "X3: budget " + budget.key + " forgot partition "
              + pool.partition + ", which is not idle: " + pool);
          budget.pools.remove(pool.partition);
        }
      }
    }
  }

  /** What the engine may forget of a partition (X3): nothing waits or runs, full, not paused. */
  private boolean idle(Pool pool) {
    boolean unused = jobs.values().stream().noneMatch(j -> j.state != State.SCHEDULED
        && j.bindings.stream().anyMatch(b -> b.key().equals(pool.budget.key)
            && pool.partition.equals(b.partition())));
    return unused && !pool.bucket.paused(now) && pool.bucket.debtAt(now) == 0
        && pool.bucket.available(now) >= pool.bucket.capacity();
  }

  private void checkAfterPass(Map<Worker, List<Job>> received,
      Map<Worker, Set<JobId>> dispatchableAtStart) {
    long inFlight = jobs.values().stream().filter(j -> j.state == State.IN_FLIGHT).count();
    check(engine.inFlightCount() == inFlight, () -> "engine counts " + engine.inFlightCount()
        + " jobs in flight, the model " + inFlight);
    check(globalLimit == 0 || inFlight <= globalLimit, () -> inFlight
        + " jobs in flight, over the global limit " + globalLimit);
    for (Budget budget : budgets.values()) {
      for (Pool pool : budget.pools.values()) {
        if (pool.inFlightCost == 0) {
          pool.carriesSwitchOvershoot = false;
        }
        if (pool.inFlightCost <= budget.policy.allocation()) {
          pool.loweredBelowInFlight = false;
        }
        check(budget.policy.timeBased() || pool.carriesSwitchOvershoot
            || pool.loweredBelowInFlight || pool.inFlightCost <= budget.policy.allocation(),
            () -> "invariant 1: while_in_flight budget " + pool.name() + " " + budget.policy
                + " has in-flight cost " + pool.inFlightCost);
      }
    }
    boolean globalRoom = globalLimit == 0 || inFlight < globalLimit;
    List<Job> ready = jobs.values().stream().filter(j -> j.state == State.READY).toList();
    for (Worker worker : openWorkers) {
      if (!globalRoom || !worker.hasFreeSlot()) {
        continue;
      }
      Map<String, Job> heads = heads(worker.queues);
      for (Job job : ready) {
        if (!worker.takes(job.queue)) {
          continue;
        }
        check(!job.bindings.isEmpty(), () -> "invariant 4: unbound ready job " + job + " of "
            + job.queue + " left undispatched though " + worker + " has a free slot (holds "
            + worker.holding.size() + ")");
        check(headedBudgets(job, heads).isEmpty() || !affordable(job), () -> "invariant 5: "
            + "ready job " + job + " of " + job.queue + " " + job.bindings + " heads "
            + headedBudgets(job, heads) + " among the queues of " + worker.name
            + " and every budget can pay now (" + budgetStates(job) + "), yet it was left "
            + "undispatched though " + worker + " has a free slot (holds "
            + worker.holding.size() + ")");
      }
    }
    // §5.2: each stream gets the best dispatchable job. A job that headed its budgets from the
    // start of the pass and can still pay at its end (tokens only go down during a pass) was
    // dispatchable throughout, so no stream may have received a worse one instead.
    for (Map.Entry<Worker, List<Job>> e : received.entrySet()) {
      Worker worker = e.getKey();
      Job worst = e.getValue().stream().max(ORDER).orElseThrow();
      for (Job job : ready) {
        if (dispatchableAtStart.get(worker).contains(job.id)
            && (job.bindings.isEmpty() || affordable(job)) && ORDER.compare(job, worst) < 0) {
          throw new Violation("§5.2 best job first: " + worker.name + " received " + worst
              + " (priority " + worst.priority + ") while " + job + " (priority " + job.priority
              + ", " + job.bindings + ") was dispatchable throughout the pass and is still "
              + "ready");
        }
      }
    }
  }

  /**
   * Each budget's head for a worker taking {@code queues} (every queue when null): its best ready
   * job among those queues (BUDGETS.md §5.2: "its head is its best parked job in Q"). Recomputed
   * whenever needed, since it changes with every delivery.
   */
  private Map<String, Job> heads(Set<String> queues) {
    Map<String, Job> heads = new HashMap<>();
    for (Job job : jobs.values()) {
      if (job.state != State.READY || (queues != null && !queues.contains(job.queue))) {
        continue;
      }
      for (Binding binding : job.bindings) {
        heads.merge(poolName(binding), job, (a, b) -> ORDER.compare(a, b) <= 0 ? a : b);
      }
    }
    return heads;
  }

  private static boolean boundTo(Job job, String key) {
    for (Binding binding : job.bindings) {
      if (binding.key().equals(key)) {
        return true;
      }
    }
    return false;
  }

  private static List<String> headedBudgets(Job job, Map<String, Job> heads) {
    List<String> headed = new ArrayList<>();
    for (Binding binding : job.bindings) {
      if (heads.get(poolName(binding)) == job) {
        headed.add(poolName(binding));
      }
    }
    return headed;
  }

  private boolean affordable(Job job) {
    for (Binding binding : job.bindings) {
      if (!poolOf(binding).bucket.canPay(binding.cost(), now)) {
        return false;
      }
    }
    return true;
  }

  private String budgetStates(Job job) {
    return job.bindings.stream().map(b -> {
      Pool pool = poolOf(b);
      return pool.name() + ": " + pool.policy() + " holds " + pool.bucket.available(now)
          + ", in-flight cost " + pool.inFlightCost;
    }).collect(Collectors.joining("; "));
  }

  /**
   * The next instant at which the model expects something to become dispatchable without any
   * command: a scheduled job coming due, or a head that only the drip still keeps waiting.
   */
  private long modelNextInstant() {
    long next = Long.MAX_VALUE;
    // A head for any worker heads its own queue, so the heads per single queue cover them all.
    Map<String, Map<String, Job>> headsByQueue = new HashMap<>();
    for (Job job : jobs.values()) {
      if (job.state == State.SCHEDULED) {
        next = Math.min(next, job.readyAtMs);
      } else if (job.state == State.READY && !job.bindings.isEmpty() && !headedBudgets(job,
          headsByQueue.computeIfAbsent(job.queue, q -> heads(Set.of(q)))).isEmpty()) {
        long at = now;
        for (Binding binding : job.bindings) {
          at = Math.max(at, poolOf(binding).bucket.payableAt(binding.cost(), now));
        }
        if (at > now && at != Long.MAX_VALUE) {
          next = Math.min(next, at);
        }
      }
    }
    return next;
  }

  // ---- operations ----------------------------------------------------------------------------

  /** Runs an engine call whose outcome the model predicted; null {@code expected} = success. */
  private boolean expect(String what, Runnable call, Class<? extends SluiceException> type,
      String expected) {
    SluiceException thrown = null;
    try {
      call.run();
    } catch (SluiceException e) {
      thrown = e;
    }
    SluiceException actual = thrown;
    if (expected == null) {
      check(actual == null, () -> what + ": expected success, engine refused with "
          + actual.getClass().getSimpleName() + " '" + actual.getMessage() + "'");
      logStep(what + ": ok");
      return true;
    }
    check(actual != null, () -> what + ": expected refusal " + type.getSimpleName() + " '"
        + expected + "', engine accepted it");
    check(type.isInstance(actual) && expected.equals(actual.getMessage()), () -> what
        + ": expected " + type.getSimpleName() + " '" + expected + "', engine said "
        + actual.getClass().getSimpleName() + " '" + actual.getMessage() + "'");
    logStep(what + ": refused (" + expected + ")");
    refusals++;
    return false;
  }

  /** §8.9 shrink guard message, or null when nothing unfinished costs more than capacity. */
  private String shrinkRefusal(String key, long capacity) {
    long max = 0;
    int count = 0;
    for (Job job : jobs.values()) {
      for (Binding binding : job.bindings) {
        if (binding.key().equals(key)) {
          max = Math.max(max, binding.cost());
          count++;
        }
      }
    }
    if (max <= capacity) {
      return null;
    }
    return "budget '" + key + "' cannot allocate " + capacity + ": " + count + " unfinished "
        + (count == 1 ? "job" : "jobs") + " draw up to " + max + " from it. Raise the "
        + "allocation, delete them, or wait for them to drain.";
  }

  private void putBudget(String key, ModelPolicy policy) {
    Budget existing = budgets.get(key);
    // X3: partitioned is fixed at creation, checked before the shrink guard.
    String refusal = existing == null ? null
        : existing.partitioned != policy.partitioned() ? "budget partitioned cannot be changed"
        : shrinkRefusal(key, policy.capacity());
    boolean ok = expect("put " + key + " " + policy,
        () -> engine.budgetAdmin().put(key, policy.toSpec(), now),
        SluiceException.Unprocessable.class, refusal);
    if (ok) {
      if (existing == null) {
        budgets.put(key, new Budget(key, policy));
      } else {
        existing.adopt(policy);
      }
    }
  }

  private void createBudget(String key, ModelPolicy policy) {
    boolean exists = budgets.containsKey(key);
    boolean ok = expect("create " + key + " " + policy,
        () -> engine.budgetAdmin().create(key, policy.toSpec(), now),
        SluiceException.Conflict.class, exists ? "budget '" + key + "' already exists" : null);
    if (ok) {
      budgets.put(key, new Budget(key, policy));
    }
  }

  private void patchBudget(Ops.PatchBudget patch) {
    String key = key(patch.key());
    PolicyPatch body = new PolicyPatch(patch.allocation(), patch.type(), patch.durationMs(),
        patch.burst(), patch.clearBurst(), patch.durable());
    String what = "patch " + key + " {" + (patch.allocation() == null ? "" : "allocation "
        + patch.allocation() + " ") + (patch.type() == null ? "" : patch.type() + " ")
        + (patch.durationMs() == null ? "" : "duration " + patch.durationMs() + " ")
        + (patch.burst() == null ? "" : "burst " + patch.burst() + " ")
        + (patch.clearBurst() ? "burst null " : "")
        + (patch.durable() == null ? "" : "durable " + patch.durable() + " ") + "}";
    Budget budget = budgets.get(key);
    if (budget == null) {
      expect(what, () -> engine.budgetAdmin().patch(key, body, now),
          SluiceException.NotFound.class, "budget '" + key + "' not found");
      return;
    }
    // §8.5: a changed type keeps none of the stored strategy fields; same type merges them.
    ModelPolicy old = budget.policy;
    String type = patch.type() != null ? patch.type() : old.type();
    boolean sameType = type.equals(old.type());
    Long durationMs = patch.durationMs();
    Long burst = patch.burst();
    if (sameType && old.timeBased()) {
      durationMs = durationMs != null ? durationMs : (Long) old.durationMs();
      burst = patch.clearBurst() ? null : burst != null ? burst : old.burst();
    }
    long allocation = patch.allocation() != null ? patch.allocation() : old.allocation();
    // A merge patch leaves what it does not name as it is: durability too (X4). The first model
    // of restarts built the merged policy without it, so a patch (of a period, say) silently made
    // a durable budget plain in the model and the next restart refilled the model's bucket, while
    // the engine rightly resumed the stored one.
    boolean durable = patch.durable() != null ? patch.durable() : old.durable();
    String invalid = null;
    ModelPolicy merged = null;
    if (type.equals("time_based")) {
      if (durationMs == null) {
        invalid = "time_based budget requires duration_ms";
      } else {
        merged = ModelPolicy.timeBased(allocation, durationMs, burst).withDurable(durable)
            .withPartitioned(old.partitioned());
      }
    } else if (durationMs != null) {
      invalid = "while_in_flight budget cannot take a duration_ms";
    } else if (burst != null) {
      invalid = "while_in_flight budget cannot take a burst";
    } else {
      merged = ModelPolicy.whileInFlight(allocation).withDurable(durable)
          .withPartitioned(old.partitioned());
    }
    String refusal = invalid != null ? invalid : shrinkRefusal(key, merged.capacity());
    boolean ok = expect(what + (merged == null ? "" : " → " + merged),
        () -> engine.budgetAdmin().patch(key, body, now), SluiceException.Unprocessable.class,
        refusal);
    if (ok) {
      budget.adopt(merged);
    }
  }

  private void deleteBudget(String key) {
    Budget budget = budgets.get(key);
    if (budget == null) {
      expect("delete " + key, () -> engine.budgetAdmin().delete(key),
          SluiceException.NotFound.class, "budget '" + key + "' not found");
      return;
    }
    long referencing = jobs.values().stream().filter(j -> boundTo(j, key)).count();
    String refusal = referencing == 0 ? null : "budget '" + key + "' is referenced by "
        + referencing + " unfinished " + (referencing == 1 ? "job" : "jobs")
        + ". Delete them or wait for them to finish before deleting it.";
    if (expect("delete " + key, () -> engine.budgetAdmin().delete(key),
        SluiceException.Conflict.class, refusal)) {
      budgets.remove(key);
    }
  }

  private void enqueue(List<Ops.JobGen> gens) {
    Map<String, ModelPolicy> planned = new LinkedHashMap<>();
    List<NewJob> requests = new ArrayList<>();
    List<Job> created = new ArrayList<>();
    for (Ops.JobGen gen : gens) {
      List<BindingRequest> bindingRequests = new ArrayList<>();
      List<Binding> bindings = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (Ops.BindGen bind : gen.bindings()) {
        String key = key(bind.key());
        if (!seen.add(key)) {
          continue;
        }
        Budget existing = budgets.get(key);
        ModelPolicy policy = existing != null ? existing.policy
            : planned.computeIfAbsent(key, k -> bind.createWith());
        long cost = 1 + (bind.costRaw() - 1) % policy.capacity();
        // A partitioned budget's binding names one of a few partitions (X3), a plain one none.
        String partition = policy.partitioned() ? partition(bind.partition()) : null;
        bindingRequests.add(
            new BindingRequest(key, cost, bind.createWith().toSpec(), partition));
        bindings.add(new Binding(key, partition, cost));
      }
      Long readyAtMs = gen.delayMs() == 0 ? null : now + gen.delayMs();
      JobId id = ids.next(now);
      requests.add(new NewJob(id, "prop", queue(gen.queue()), gen.priority(), readyAtMs, null,
          null, null, PAYLOAD, bindingRequests));
      Job job = new Job(id, "J" + ++jobSeq, queue(gen.queue()), gen.priority(),
          List.copyOf(bindings));
      job.state = readyAtMs == null ? State.READY : State.SCHEDULED;
      job.readyAtMs = readyAtMs == null ? now : readyAtMs;
      created.add(job);
    }
    submit(requests, created, planned, "enqueue");
  }

  private void submit(List<NewJob> requests, List<Job> created, Map<String, ModelPolicy> planned,
      String verb) {
    String what = verb + " " + created.stream().map(j -> j.name + "{" + j.queue + " p"
        + j.priority + (j.bindings.isEmpty() ? "" : " " + j.bindings.stream()
            .map(b -> poolName(b) + ":" + b.cost()).collect(Collectors.joining(",")))
        + (j.state == State.SCHEDULED ? " at+" + (j.readyAtMs - now) : "") + "}")
        .collect(Collectors.joining(" "))
        + planned.entrySet().stream().map(e -> ", creating " + e.getKey() + " " + e.getValue())
            .collect(Collectors.joining());
    List<JobSnapshot> snapshots;
    try {
      snapshots = engine.enqueue(requests, now);
    } catch (SluiceException e) {
      throw new Violation(what + ": engine refused a valid enqueue: " + e.getMessage());
    }
    logStep(what);
    planned.forEach((key, policy) -> budgets.put(key, new Budget(key, policy)));
    for (int i = 0; i < created.size(); i++) {
      Job job = created.get(i);
      JobSnapshot snapshot = snapshots.get(i);
      check(snapshot.budgets().equals(job.bindings), () -> job.name + " was stored with bindings "
          + snapshot.budgets() + ", requested " + job.bindings);
      jobs.put(job.id, job);
      names.put(job.id, job.name);
    }
  }

  private void openWorker(int queueMask, int prefetch) {
    Set<String> queues = null;
    if (queueMask != 0) {
      queues = new LinkedHashSet<>();
      for (int i = 0; i < Ops.QUEUES; i++) {
        if ((queueMask & (1 << i)) != 0) {
          queues.add(queue(i));
        }
      }
    }
    Worker worker = new Worker("W" + ++workerSeq, queues, prefetch);
    worker.session = engine.openSession(queues, prefetch, worker);
    openWorkers.add(worker);
    logStep("open " + worker);
  }

  private List<Job> inFlight() {
    return jobs.values().stream().filter(j -> j.state == State.IN_FLIGHT).toList();
  }

  private void ack(int pick, boolean stale) {
    List<Job> candidates = inFlight();
    if (stale || candidates.isEmpty()) {
      List<JobId> notInFlight = new ArrayList<>(finished);
      jobs.values().stream().filter(j -> j.state != State.IN_FLIGHT).forEach(j ->
          notInFlight.add(j.id));
      if (notInFlight.isEmpty()) {
        logStep("ack: nothing to ack");
        return;
      }
      JobId id = notInFlight.get(pick % notInFlight.size());
      expect("ack " + names.get(id) + " (not in flight)", () -> engine.complete(id, now),
          SluiceException.NotFound.class, "job not found in in-flight set");
      return;
    }
    Job job = candidates.get(pick % candidates.size());
    engine.complete(job.id, now);
    logStep("ack " + job + " (held by " + job.holder.name + ")");
    leaveFlight(job);
    jobs.remove(job.id);
    finished.add(job.id);
  }

  /**
   * Acks an in-flight job settling every binding (X5): its rate budgets take or refund the
   * difference (an entry of the rate window, negative for a refund); its concurrency budgets
   * release as on any ack.
   */
  private void settle(int pick, int actualRaw) {
    List<Job> candidates = inFlight();
    if (candidates.isEmpty()) {
      logStep("settle: nothing in flight");
      return;
    }
    Job job = candidates.get(pick % candidates.size());
    List<Settlement> settlements = new ArrayList<>();
    for (int i = 0; i < job.bindings.size(); i++) {
      Binding binding = job.bindings.get(i);
      settlements.add(new Settlement(binding.key(), (actualRaw * (i + 1L)) % 25,
          binding.partition()));
    }
    engine.complete(job.id, settlements, now);
    logStep("ack " + job + " (held by " + job.holder.name + ") settling " + settlements);
    for (int i = 0; i < settlements.size(); i++) {
      Binding binding = job.bindings.get(i);
      Pool pool = poolOf(binding);
      if (pool.policy().timeBased()) {
        long actual = settlements.get(i).cost();
        pool.bucket.settle(binding.cost(), actual, now);
        pool.dispatchesSinceChange.add(new long[] {now, actual - binding.cost()});
      }
    }
    leaveFlight(job);
    jobs.remove(job.id);
    finished.add(job.id);
  }

  private void fail(int pick, Ops.FailKind kind, int delayMs) {
    List<Job> candidates = inFlight();
    if (candidates.isEmpty()) {
      logStep("fail: nothing in flight");
      return;
    }
    Job job = candidates.get(pick % candidates.size());
    Long retryAtMs = switch (kind) {
      case RETRY_IN_PAST -> now - delayMs - 1;
      case RETRY_NOW -> now;
      case RETRY_LATER -> now + delayMs + 1;
      case BACKOFF, KILL -> null;
    };
    FailureReport report =
        new FailureReport("boom", null, null, retryAtMs, kind == Ops.FailKind.KILL, 0.5);
    String holder = job.holder.name;
    JobSnapshot after = engine.fail(job.id, report, now);
    logStep("fail " + job + " (held by " + holder + ") " + kind
        + (retryAtMs == null ? "" : " retry_at " + (retryAtMs - START_MS)) + " → "
        + after.status().wireName() + (after.status() == JobStatus.SCHEDULED
            ? " until " + (after.readyAtMs() - START_MS) : ""));
    leaveFlight(job);
    if (kind == Ops.FailKind.KILL) {
      check(after.status() == JobStatus.DEAD, () -> "a killing failure left " + job + " "
          + after.status());
    } else if (retryAtMs != null) {
      check(after.status() == JobStatus.SCHEDULED && after.readyAtMs() == retryAtMs,
          () -> "fail with retry_at left " + job + " " + after.status() + " at "
              + after.readyAtMs());
    } else {
      check(after.status() == JobStatus.DEAD
          || (after.status() == JobStatus.SCHEDULED && after.readyAtMs() >= now),
          () -> "fail with backoff left " + job + " " + after.status() + " at "
              + after.readyAtMs());
    }
    if (after.status() == JobStatus.DEAD) {
      jobs.remove(job.id);
      finished.add(job.id);
    } else {
      job.state = State.SCHEDULED;
      job.readyAtMs = after.readyAtMs();
      job.attempts++;
    }
  }

  /** X6: the budget pauses for {@code forMs}, never shortening a pause already running. */
  private void pauseBudget(String key, long forMs) {
    Budget budget = budgets.get(key);
    boolean ok = expect("pause " + key + " for " + forMs + " ms",
        () -> engine.budgetAdmin().pause(key, forMs, null, now),
        SluiceException.NotFound.class, budget == null ? "budget '" + key + "' not found" : null);
    if (ok) {
      budget.pause(now + forMs);
    }
  }

  /**
   * X6 under X3: one partition pauses (made, full, if not in use); refused for a plain budget.
   */
  private void pausePartition(String key, String partition, long forMs) {
    Budget budget = budgets.get(key);
    String refusal = budget == null ? "budget '" + key + "' not found"
        : !budget.partitioned ? "budget " + key + " is not partitioned" : null;
    boolean ok = expect("pause " + key + "[" + partition + "] for " + forMs + " ms",
        () -> engine.budgetAdmin().pausePartition(key, partition, forMs, null, now),
        budget == null ? SluiceException.NotFound.class : SluiceException.Unprocessable.class,
        refusal);
    if (ok) {
      budget.pool(partition).bucket.pause(now + forMs, now);
    }
  }

  /**
   * X6: an in-flight job reports being throttled by one of its budgets, which pauses like
   * {@link #pauseBudget}; the job is ready again at once with its attempts unchanged, and the
   * checks after the turn hold it to its FIFO place. A job bound to nothing is refused.
   */
  private void throttle(int pick, int bindingPick, long retryAfterMs) {
    List<Job> candidates = inFlight();
    if (candidates.isEmpty()) {
      logStep("throttle: nothing in flight");
      return;
    }
    Job job = candidates.get(pick % candidates.size());
    if (job.bindings.isEmpty()) {
      String key = key(bindingPick % Ops.BUDGET_KEYS);
      expect("throttle " + job + " naming " + key,
          () -> engine.fail(job.id, throttled(key, retryAfterMs), now),
          SluiceException.Unprocessable.class, "job is not bound to budget " + key);
      return;
    }
    Binding named = job.bindings.get(bindingPick % job.bindings.size());
    String key = named.key();
    String holder = job.holder.name;
    JobSnapshot after = engine.fail(job.id, throttled(key, retryAfterMs), now);
    logStep("throttle " + job + " (held by " + holder + ") pausing " + poolName(named) + " for "
        + retryAfterMs + " ms → " + after.status().wireName());
    check(after.status() == JobStatus.READY && after.attempts() == job.attempts,
        () -> "a throttled failure left " + job + " " + after.status() + " with attempts "
            + after.attempts() + ", expected ready with " + job.attempts);
    // A partitioned budget pauses the partition the job draws on (X3), a plain one as a whole.
    poolOf(named).bucket.pause(now + retryAfterMs, now);
    throttles++;
    leaveFlight(job);
    job.state = State.READY;
  }

  private static FailureReport throttled(String key, long retryAfterMs) {
    return new FailureReport("429", null, null, null, false, 0.5,
        new Throttle(key, null, retryAfterMs));
  }

  private void closeWorker(int pick, boolean again) {
    if (again && !closedWorkers.isEmpty()) {
      Worker worker = closedWorkers.get(pick % closedWorkers.size());
      engine.closeSession(worker.session, now);
      logStep("disconnect " + worker.name + " again (must change nothing)");
      return;
    }
    if (openWorkers.isEmpty()) {
      logStep("disconnect: no worker open");
      return;
    }
    close(openWorkers.get(pick % openWorkers.size()));
  }

  private void close(Worker worker) {
    engine.closeSession(worker.session, now);
    List<Job> held = worker.holding.stream().map(jobs::get).toList();
    logStep("disconnect " + worker.name + (held.isEmpty() ? "" : ", requeueing " + held));
    for (Job job : held) {
      leaveFlight(job);
      job.state = State.READY;
    }
    openWorkers.remove(worker);
    closedWorkers.add(worker);
  }

  /** The job leaves flight: concurrency budgets (by their current strategy) get it back (§5.5). */
  private void leaveFlight(Job job) {
    for (Binding binding : job.bindings) {
      Pool pool = poolOf(binding);
      pool.inFlightCost -= binding.cost();
      if (!pool.policy().timeBased()) {
        pool.bucket.release(binding.cost());
      }
    }
    job.holder.holding.remove(job.id);
    job.holder = null;
  }

  /**
   * Moves the clock like the idle engine loop: it wakes at every engine deadline on the way, and
   * also at every instant the model expects a scheduled job or a drip-blocked head to become
   * dispatchable (an extra turn is harmless, and it is where a late wake-up would show).
   */
  private void advance(long ms) {
    long target = now + ms;
    logStep("advance " + ms + " ms");
    int wakes = 0;
    while (true) {
      long next = Math.min(engine.nextDeadlineMs(), modelNextInstant());
      if (next > target) {
        break;
      }
      long at = next;
      check(at > now, () -> "a deadline " + (at - START_MS) + " is not after now");
      now = at;
      check(++wakes <= 20_000, () -> "more than 20000 wake-ups within one advance");
      ticks++;
      turn();
    }
    now = target;
  }

  /**
   * The process dies after its last commit and a fresh engine recovers from the store: streams are
   * gone, jobs in flight are ready again, and every bucket starts full (BUDGETS.md §10) except a
   * durable rate budget's, which the model keeps exactly as an uninterrupted run has it (X4), with
   * its dispatch history, so invariant 2 spans the restart.
   */
  private void restart() {
    logStep("restart: the server dies and recovers from its store");
    restarts++;
    for (Worker worker : List.copyOf(openWorkers)) {
      // The connection dies with the process; what this writes is never committed.
      engine.closeSession(worker.session, now);
      for (JobId id : worker.holding) {
        Job job = jobs.get(id);
        job.state = State.READY;
        job.holder = null;
      }
      worker.holding.clear();
      openWorkers.remove(worker);
      closedWorkers.add(worker);
    }
    for (Budget budget : budgets.values()) {
      budget.restarted();
    }
    store = store.reopen();
    engine = new Engine(config);
    engine.recoverFrom(store, now);
  }

  // ---- end of scenario -----------------------------------------------------------------------

  /**
   * Invariant 6 by behaviour: every worker disconnects (returning whatever it held), then each
   * while_in_flight budget in turn is offered {@code allocation + 1} cost-1 probe jobs on a queue
   * of its own and one unlimited worker: exactly as many must go out at once as the budget holds
   * — its whole allocation, unless a §7 switch from time_based carried fewer tokens over.
   */
  private void finale() {
    logStep("finale: every worker disconnects, then each while_in_flight budget is probed");
    for (Worker worker : List.copyOf(openWorkers)) {
      close(worker);
      turn();
    }
    for (Budget budget : budgets.values()) {
      if (budget.paused()) {
        // Resumes the whole budget: every partition of a partitioned one too.
        engine.budgetAdmin().resume(budget.key, now);
        budget.resume();
        logStep("resume " + budget.key);
        turn();
      }
    }
    for (Budget budget : List.copyOf(budgets.values())) {
      check(budget.inFlightCost() == 0, () -> "model: " + budget + " still has in-flight cost");
      if (budget.policy.timeBased()) {
        continue;
      }
      if (!budget.partitioned) {
        probe(budget.pool(null));
        continue;
      }
      for (int i = 0; i < Ops.PARTITIONS; i++) {
        probe(budget.pool(partition(i)));
      }
    }
  }

  /** Invariant 6 for one while_in_flight pool (see {@link #finale}). */
  private void probe(Pool pool) {
    {
      Budget budget = pool.budget;
      long capacity = budget.policy.allocation();
      long held = pool.bucket.tokens();
      // Nothing is in flight now, so the global limit is the only other cap on "at once".
      long expected = globalLimit == 0 ? held : Math.min(held, globalLimit);
      // Self-check of the model: without a §7 strategy switch, conservation (in flight + T − D
      // = allocation) gives back the full allocation once nothing is in flight. After a switch
      // from time_based the bucket holds min(T, C) instead, and a later narrowing can leave debt
      // that no release will ever pay: the spec's own outcome, which the probe then expects.
      check(pool.switchedFromRate || (held == capacity && pool.bucket.debt() == 0),
          () -> "model: " + pool.name() + " " + pool + " lost tokens without a strategy switch");
      String probeQueue =
          "probe-" + budget.key + (pool.partition == null ? "" : "-" + pool.partition);
      List<NewJob> requests = new ArrayList<>();
      List<Job> created = new ArrayList<>();
      for (long i = 0; i <= capacity; i++) {
        JobId id = ids.next(now);
        requests.add(new NewJob(id, "probe", probeQueue, 0, null, null, null, null, PAYLOAD,
            List.of(new BindingRequest(budget.key, 1L, null, pool.partition))));
        Job job = new Job(id, "P" + ++jobSeq, probeQueue, 0,
            List.of(new Binding(budget.key, pool.partition, 1)));
        job.state = State.READY;
        job.readyAtMs = now;
        created.add(job);
      }
      step++;
      submit(requests, created, Map.of(), "probe " + pool.name() + " " + pool + ":");
      turn();
      step++;
      // A prefetch that holds every probe job: the budget and the global limit are the caps.
      int probePrefetch = Math.toIntExact(capacity + 1);
      Worker probe = new Worker("W" + ++workerSeq, Set.of(probeQueue), probePrefetch);
      probe.session = engine.openSession(probe.queues, probePrefetch, probe);
      openWorkers.add(probe);
      logStep("open " + probe);
      int before = dispatches;
      turn();
      int got = dispatches - before;
      check(got == expected, () -> "invariant 6: once nothing was in flight, while_in_flight "
          + "budget " + pool.name() + " " + budget.policy + " dispatched " + got + " of "
          + (capacity + 1) + " cost-1 probe jobs at once; expected " + expected + ": it should "
          + "hold " + held + (held == capacity ? " (its allocation)" : " (carried over by a §7 "
          + "switch)") + (expected < held ? ", capped by the global in-flight limit" : "")
          + ": tokens were " + (got < expected ? "lost" : "returned more than once"));
      step++;
      close(probe);
      turn();
    }
  }
}

package io.sluice.engine;

import io.sluice.engine.job.Job;
import io.sluice.engine.store.CommitBatch;
import io.sluice.engine.store.JobStore;
import io.sluice.engine.store.Mutation;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link Engine} on its own thread ({@code sluice-engine}), or on a host's single thread
 * ({@link #hostOn}): either way, one thread at a time runs its turns.
 *
 * <p>Each turn applies every queued command and promotes due jobs, then writes the turn's
 * mutations as one batch (group commit), then dispatches. A buffered write is only a WAL append
 * handed to the OS, so it is done inline: no thread hop between an enqueue and its dispatch, and
 * the dispatch comes before the turn's answers, so a waiting worker gets a new job first. A
 * turn that must be fsynced goes to the {@code sluice-commit} thread instead, so the engine keeps
 * dispatching while the disk flushes; while such a commit is pending, later turns queue behind it
 * so that turns always become durable in order. A dispatch that spent a durable budget's tokens
 * (X4) is followed at once by a turn storing that state, and those jobs are written to their
 * streams only once it is durable; every other delivery goes out as the dispatch makes it. A command's future completes only after its
 * turn is durable, so a response never reveals state that a crash could undo. The engine
 * sleeps until the next command, the engine's earliest deadline or a failed commit; it never
 * polls.
 *
 * <p>A failed commit changes nothing that its callers could see: its turn's commands fail, so do
 * the turns queued behind it (they were built on its changes), and the engine rebuilds its state
 * from the store before it takes another command ({@link Engine#rollBack}). What cannot be undone
 * is a dispatch made meanwhile on a turn still waiting for its fsync (docs/decisions.md).
 *
 * <p>One store commit holds at most {@link CommitLimits#enqueues} enqueue commands and at most
 * {@link CommitLimits#completions} success acknowledgements (CLI.md §6); a bulk request is one
 * command, and a turn that reaches a limit ends there, the rest waiting for the next turn.
 */
public final class EngineLoop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EngineLoop.class);
  /**
   * Queued by the engine's thread as its last act once the loop is closed, so behind every turn
   * it handed over: the commit thread then stops. It waits for work without a timeout, so an
   * idle server's commit thread never wakes.
   */
  private static final CommitWork STOP_COMMITTING = new CommitWork(null, List.of(), null);
  private static final int MAX_COMMANDS_PER_TURN = 4096;

  /** A state change or read, applied on the engine thread with the turn's time. */
  @FunctionalInterface
  public interface Command<T> {
    T apply(Engine engine, long nowMs);
  }

  /** Commit-mode choice: whether enqueue writes and other writes must be fsynced. */
  public record CommitModes(boolean syncEnqueues, boolean syncOthers) {}

  /** What a command is, for the per-commit limits; reads and other changes are unlimited. */
  public enum Kind {
    ENQUEUE(1, 0), COMPLETE(0, 1), OTHER(0, 0);

    private final int enqueues;
    private final int completions;

    Kind(int enqueues, int completions) {
      this.enqueues = enqueues;
      this.completions = completions;
    }
  }

  /** The most enqueue commands and success acknowledgements one store commit may coalesce. */
  public record CommitLimits(int enqueues, int completions) {
    public static final int DEFAULT = 1000;
    public static final CommitLimits DEFAULTS = new CommitLimits(DEFAULT, DEFAULT);

    public CommitLimits {
      if (enqueues < 1 || completions < 1) {
        throw new IllegalArgumentException("commit batch sizes must be at least 1");
      }
    }
  }

  /** Enqueue and completion commands counted against the {@link CommitLimits}. */
  private static final class Counts {
    int enqueues;
    int completions;

    boolean admits(int moreEnqueues, int moreCompletions, CommitLimits limits) {
      return enqueues + moreEnqueues <= limits.enqueues()
          && completions + moreCompletions <= limits.completions();
    }

    void add(int moreEnqueues, int moreCompletions) {
      enqueues += moreEnqueues;
      completions += moreCompletions;
    }
  }

  private record Pending<T>(Kind kind, Command<T> command, CompletableFuture<T> future) {}

  private record Completion<T>(CompletableFuture<T> future, T value, Throwable error) {
    void complete(Throwable commitError) {
      if (commitError != null) {
        future.completeExceptionally(commitError);
      } else if (error != null) {
        future.completeExceptionally(error);
      } else {
        future.complete(value);
      }
    }
  }

  private record CommitWork(Turn turn, List<Completion<?>> completions, Counts counts) {}

  private final Engine engine;
  private final JobStore store;
  private final InstantSource clock;
  private final CommitModes commitModes;
  private final CommitLimits commitLimits;
  private final ConcurrentLinkedQueue<Pending<?>> inbox = new ConcurrentLinkedQueue<>();
  private final BlockingQueue<CommitWork> commits = new LinkedBlockingQueue<>();
  /** Turns handed to the commit thread and not yet durable; inline commits wait for zero. */
  private final AtomicInteger pendingCommits = new AtomicInteger();
  private volatile Thread engineThread;
  private final Thread commitThread;
  private volatile boolean running = true;
  /** The single thread the engine runs on instead of its own, or null (see {@link #hostOn}). */
  private volatile ScheduledExecutorService host;
  /** The {@link #host}'s thread. */
  private volatile Thread hostThread;
  /** Set while the engine's own thread stops for {@link #hostOn}. */
  private volatile boolean handingOver;
  /** A turn is queued on the {@link #host} and has not started. */
  private final AtomicBoolean turnQueued = new AtomicBoolean();
  /**
   * {@link #turnOnHost} and {@link #wake} as tasks, made once: on C1 a capturing method reference
   * is made through method handles it does not inline.
   */
  private final Runnable turnOnHostTask = this::turnOnHost;
  private final Runnable wakeTask = this::wake;
  /** On the host: the wake-up at the engine's next deadline, and that deadline. */
  private ScheduledFuture<?> deadlineTimer;
  private long deadlineTimerMs;
  /**
   * Set when a commit fails, before its turn is counted out of {@link #pendingCommits}; until the
   * engine has rolled back, every later turn fails unwritten.
   */
  private volatile Throwable poisonedBy;
  /** The turns that failed since the last rollback, oldest first. */
  private final ConcurrentLinkedQueue<Turn> failedTurns = new ConcurrentLinkedQueue<>();

  public EngineLoop(Engine engine, JobStore store, InstantSource clock, CommitModes commitModes) {
    this(engine, store, clock, commitModes, CommitLimits.DEFAULTS);
  }

  public EngineLoop(Engine engine, JobStore store, InstantSource clock, CommitModes commitModes,
      CommitLimits commitLimits) {
    this.engine = engine;
    this.store = store;
    this.clock = clock;
    this.commitModes = commitModes;
    this.commitLimits = commitLimits;
    this.engineThread = newEngineThread();
    this.commitThread = new Thread(this::runCommits, "sluice-commit");
  }

  private Thread newEngineThread() {
    return new Thread(this::runEngine, "sluice-engine");
  }

  public void start() {
    commitThread.start();
    if (host == null) {
      engineThread.start();
    }
  }

  /**
   * Moves the engine from its own thread onto {@code host}, a single thread such as the one
   * event loop serving every connection: a command submitted there runs in the next turn on the
   * same thread, and its answer and deliveries are written without waking another thread. Turns
   * queued with {@link ScheduledExecutorService#execute} run after the host's current work, so the
   * commands of one burst of requests still share a turn and a commit. Call from neither the
   * engine nor the host; {@link #leaveHost} (or {@link #close}) moves it back.
   */
  public void hostOn(ScheduledExecutorService host) {
    try {
      hostThread = host.submit(Thread::currentThread).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while moving the engine onto its host", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("the engine's host did not run a task", e.getCause());
    }
    handingOver = true;
    awaitEngineThreadStopped();
    handingOver = false;
    this.host = host;
    wake();
  }

  /**
   * Until the engine's own thread has stopped: however long its turn, and even if something in
   * the turn used up the wake-up, the host must never run a turn beside it.
   */
  private void awaitEngineThreadStopped() {
    boolean interrupted = false;
    while (engineThread.isAlive()) {
      LockSupport.unpark(engineThread);
      try {
        engineThread.join(100);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Moves the engine back onto a thread of its own, before its host shuts down. On the host
   * itself the move waits for the host's current task (a turn may be running it).
   */
  public void leaveHost() {
    ScheduledExecutorService current = host;
    if (current == null) {
      return;
    }
    CompletableFuture<Void> left = new CompletableFuture<>();
    try {
      // A task of its own on the host, so no turn runs meanwhile; a turn queued earlier finds no
      // host and returns.
      current.execute(() -> {
        leave();
        left.complete(null);
      });
    } catch (RejectedExecutionException e) {
      // The host has stopped taking tasks, so it runs no more turns.
      leave();
      return;
    }
    if (Thread.currentThread() == hostThread) {
      return;
    }
    try {
      left.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("the engine did not leave its host: {}", e.toString());
    }
  }

  private synchronized void leave() {
    if (host == null) {
      return;
    }
    cancelDeadlineTimer();
    host = null;
    hostThread = null;
    Thread thread = newEngineThread();
    engineThread = thread;
    thread.start();
  }

  private void wake() {
    ScheduledExecutorService current = host;
    if (current == null) {
      LockSupport.unpark(engineThread);
    } else if (turnQueued.compareAndSet(false, true)) {
      try {
        current.execute(turnOnHostTask);
      } catch (RejectedExecutionException e) {
        // Only a host shut down before the engine left it: nothing can run the turn.
        turnQueued.set(false);
        LOG.warn("the engine's host refused a turn: it was shut down before the engine left");
      }
    }
  }

  private void turnOnHost() {
    turnQueued.set(false);
    if (host == null) {
      // Queued before the engine left its host: the engine's own thread takes the inbox now.
      LockSupport.unpark(engineThread);
      return;
    }
    switch (turn()) {
      case TURN_AGAIN -> wake();
      case SLEEP_UNTIL_DEADLINE -> wakeOnHostAt(engine.nextDeadlineMs());
      case WAIT_FOR_COMMIT_THREAD -> { }
    }
  }

  private void wakeOnHostAt(long deadlineMs) {
    if (deadlineTimer != null && deadlineTimerMs == deadlineMs && !deadlineTimer.isDone()) {
      return;
    }
    cancelDeadlineTimer();
    if (deadlineMs == Long.MAX_VALUE || !running) {
      return;
    }
    long waitNanos = nanosUntil(deadlineMs);
    if (waitNanos <= 0) {
      wake();
      return;
    }
    deadlineTimerMs = deadlineMs;
    deadlineTimer = host.schedule(wakeTask, waitNanos, TimeUnit.NANOSECONDS);
  }

  private void cancelDeadlineTimer() {
    if (deadlineTimer != null) {
      deadlineTimer.cancel(false);
      deadlineTimer = null;
    }
  }

  public <T> CompletableFuture<T> submit(Command<T> command) {
    return submit(Kind.OTHER, command);
  }

  /** Submits a command of a kind that the per-commit limits count. */
  public <T> CompletableFuture<T> submit(Kind kind, Command<T> command) {
    CompletableFuture<T> future = new CompletableFuture<>();
    if (!running) {
      future.completeExceptionally(new IllegalStateException("engine is stopped"));
      return future;
    }
    inbox.add(new Pending<>(kind, command, future));
    wake();
    return future;
  }

  /** What the engine does after a turn. */
  private enum AfterTurn {
    /** Commands or writes are waiting, or a failed commit must be undone: turn again. */
    TURN_AGAIN,
    /** Nothing to do until a command arrives or the engine's next deadline. */
    SLEEP_UNTIL_DEADLINE,
    /** A failed commit is being counted out; the commit thread wakes the engine when it is. */
    WAIT_FOR_COMMIT_THREAD
  }

  private void runEngine() {
    while ((running || !inbox.isEmpty()) && !handingOver) {
      switch (turn()) {
        case TURN_AGAIN -> { }
        case SLEEP_UNTIL_DEADLINE -> park(engine.nextDeadlineMs());
        case WAIT_FOR_COMMIT_THREAD -> LockSupport.park(this);
      }
    }
    if (!handingOver) {
      commits.add(STOP_COMMITTING);
    }
  }

  /** One engine turn: the inbox's commands, due work, the commit, then dispatch. */
  private AfterTurn turn() {
    if (poisonedBy != null) {
      if (pendingCommits.get() > 0) {
        // The turns queued behind the failed one are being failed; none may be applied first.
        return AfterTurn.WAIT_FOR_COMMIT_THREAD;
      }
      rollBack();
    }
    long nowMs = clock.millis();
    int applied = 0;
    Counts counts = new Counts();
    List<Completion<?>> completions = new ArrayList<>();
    Pending<?> pending;
    // Only the engine takes from the inbox, so the head peeked at is the one polled.
    while (applied < MAX_COMMANDS_PER_TURN && (pending = inbox.peek()) != null
        && counts.admits(pending.kind().enqueues, pending.kind().completions, commitLimits)) {
      inbox.poll();
      counts.add(pending.kind().enqueues, pending.kind().completions);
      completions.add(apply(pending, nowMs));
      applied++;
    }
    try {
      engine.runDue(nowMs);
    } catch (RuntimeException e) {
      LOG.error("engine turn failed", e);
    }
    Turn turn = engine.takeTurn();
    if (!turn.isEmpty() || !completions.isEmpty()) {
      commitTurn(turn, completions, counts, nowMs, true);
    }
    if (poisonedBy == null) {
      dispatch(nowMs);
      if (engine.awaitsCommit()) {
        // Jobs charged to durable budgets (X4) reach their workers only once the token state
        // they spent is durable: commit it now, in a turn of its own. That commit does not
        // dispatch first: a dispatch there could charge a durable budget again after this one
        // check for deliveries awaiting a commit, and they would wait for the next turn.
        commitTurn(engine.takeTurn(), new ArrayList<>(), new Counts(), nowMs, false);
      }
    }
    // Nothing left to apply or to write: what the turn made due is the engine's next deadline,
    // not a reason for a turn of its own.
    if (inbox.isEmpty() && poisonedBy == null && !engine.hasWorkLeft()) {
      return AfterTurn.SLEEP_UNTIL_DEADLINE;
    }
    return AfterTurn.TURN_AGAIN;
  }

  /**
   * Commits the turn inline, or hands it to the commit thread, or fails it behind a failed one.
   * With {@code dispatchFirst}, an inline commit dispatches before completing the futures.
   */
  private void commitTurn(Turn turn, List<Completion<?>> completions, Counts counts, long nowMs,
      boolean dispatchFirst) {
    // Read in this order: a commit that failed has set poisonedBy before it counted out.
    boolean nothingPending = pendingCommits.get() == 0;
    Throwable poison = poisonedBy;
    if (poison != null && nothingPending) {
      failUnwritten(turn, completions, poison);
    } else if (poison == null && nothingPending && !needsSync(turn)) {
      commitInline(turn, completions, nowMs, dispatchFirst);
    } else {
      // Also a turn built on a failed one while others are pending: the commit thread fails
      // it in order behind them, so the failed turns are undone oldest first.
      pendingCommits.incrementAndGet();
      commits.add(new CommitWork(turn, completions, counts));
    }
  }

  private boolean needsSync(Turn turn) {
    return (turn.hasEnqueues() && commitModes.syncEnqueues())
        || (turn.hasOtherWrites() && commitModes.syncOthers());
  }

  private void commitInline(Turn turn, List<Completion<?>> completions, long nowMs,
      boolean dispatchFirst) {
    Throwable failure = write(turn.mutations(), false);
    if (failure == null) {
      engine.turnDurable(turn, nowMs);
      if (dispatchFirst) {
        // Before the answers, which completing the futures below queues to their connections:
        // a job enqueued in this turn reaches its worker first.
        dispatch(nowMs);
      }
    } else {
      poison(List.of(turn), failure);
    }
    for (Completion<?> completion : completions) {
      completion.complete(failure);
    }
  }

  private void dispatch(long nowMs) {
    try {
      engine.dispatch(nowMs);
    } catch (RuntimeException e) {
      LOG.error("dispatch failed", e);
    }
  }

  /** A turn built on a failed one: it fails too, and is undone with it. */
  private void failUnwritten(Turn turn, List<Completion<?>> completions, Throwable cause) {
    failedTurns.add(turn);
    for (Completion<?> completion : completions) {
      completion.complete(cause);
    }
  }

  private void poison(List<Turn> turns, Throwable cause) {
    failedTurns.addAll(turns);
    if (poisonedBy == null) {
      poisonedBy = cause;
    }
  }

  /** Engine thread, nothing pending: the state goes back to what the store holds. */
  private void rollBack() {
    List<Turn> undone = new ArrayList<>();
    Turn turn;
    while ((turn = failedTurns.poll()) != null) {
      undone.add(turn);
    }
    long startedNanos = System.nanoTime();
    try {
      engine.rollBack(store, undone, clock.millis());
      LOG.warn("a failed commit undid {} turn(s); state rebuilt from the store in {} ms",
          undone.size(), (System.nanoTime() - startedNanos) / 1_000_000);
    } catch (RuntimeException e) {
      // The store cannot even be read: keep serving from memory rather than stop; what memory
      // holds beyond the store is lost at the next restart.
      LOG.error("rebuilding state from the store after a failed commit failed", e);
    }
    poisonedBy = null;
  }

  private Throwable write(List<Mutation> mutations, boolean sync) {
    if (mutations.isEmpty()) {
      return null;
    }
    try {
      long startedNanos = System.nanoTime();
      store.commit(new CommitBatch(mutations, sync));
      engine.observer().committed(sync, System.nanoTime() - startedNanos);
      return null;
    } catch (RuntimeException e) {
      LOG.error("commit of {} mutations failed", mutations.size(), e);
      return e;
    }
  }

  private <T> Completion<T> apply(Pending<T> pending, long nowMs) {
    try {
      return new Completion<>(pending.future(), pending.command().apply(engine, nowMs), null);
    } catch (RuntimeException e) {
      return new Completion<>(pending.future(), null, e);
    }
  }

  private void park(long deadlineMs) {
    if (!running) {
      return;
    }
    if (deadlineMs == Long.MAX_VALUE) {
      LockSupport.park(this);
      return;
    }
    long waitNanos = nanosUntil(deadlineMs);
    if (waitNanos > 0) {
      LockSupport.parkNanos(this, waitNanos);
    }
  }

  private long nanosUntil(long deadlineMs) {
    Instant now = clock.instant();
    long waitMs = deadlineMs - now.toEpochMilli();
    if (waitMs <= 0) {
      return 0;
    }
    // Less the part of the current millisecond already gone: a refill due at a millisecond is
    // served at that instant, not up to a millisecond after it.
    long elapsedInMs = now.getNano() % 1_000_000;
    return TimeUnit.MILLISECONDS.toNanos(waitMs) - elapsedInMs;
  }

  private void runCommits() {
    List<CommitWork> batch = new ArrayList<>();
    while (true) {
      try {
        CommitWork first = commits.take();
        if (first == STOP_COMMITTING) {
          return;
        }
        batch.add(first);
        Counts counts = new Counts();
        counts.add(first.counts().enqueues, first.counts().completions);
        CommitWork next;
        while ((next = commits.peek()) != null && next != STOP_COMMITTING
            && counts.admits(next.counts().enqueues, next.counts().completions, commitLimits)) {
          commits.poll();
          counts.add(next.counts().enqueues, next.counts().completions);
          batch.add(next);
        }
        commit(batch);
        batch.clear();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Writes several turns as one store batch, in order, then completes their callers. */
  private void commit(List<CommitWork> works) {
    List<Mutation> mutations = new ArrayList<>();
    boolean sync = false;
    List<Job> newJobs = new ArrayList<>();
    for (CommitWork work : works) {
      Turn turn = work.turn();
      mutations.addAll(turn.mutations());
      newJobs.addAll(turn.newJobs());
      sync |= needsSync(turn);
    }
    Throwable poison = poisonedBy;
    Throwable failure = poison != null ? poison : write(mutations, sync);
    if (failure == null) {
      for (CommitWork work : works) {
        engine.durable(work.turn());
      }
    } else {
      poison(works.stream().map(CommitWork::turn).toList(), failure);
    }
    List<Turn> awaitingDelivery = works.stream().map(CommitWork::turn)
        .filter(turn -> !turn.awaitingCommit().isEmpty()).toList();
    if (failure == null && (!newJobs.isEmpty() || !awaitingDelivery.isEmpty())) {
      // Index before answering, so a job is dispatchable by the time its enqueue is confirmed;
      // and write the deliveries that waited for this commit (X4), on the engine thread.
      submit((engine, nowMs) -> {
        engine.committed(newJobs, nowMs);
        for (Turn turn : awaitingDelivery) {
          engine.deliverCommitted(turn);
        }
        return null;
      });
    }
    for (CommitWork work : works) {
      for (Completion<?> completion : work.completions()) {
        completion.complete(failure);
      }
    }
    pendingCommits.addAndGet(-works.size());
    if (failure != null) {
      // The engine may be asleep: it must roll back before anything else.
      wake();
    }
  }

  /** Runs one command and waits for it; for start-up and shutdown steps. */
  public <T> T call(Command<T> command) {
    return submit(command).join();
  }

  @Override
  public void close() {
    if (!running) {
      return;
    }
    running = false;
    boolean onHost = Thread.currentThread() == hostThread;
    // The engine's own thread takes what is left in the inbox, then stops, and the commit thread
    // after it.
    leaveHost();
    if (onHost) {
      // The engine leaves only once this task of the host's ends: waiting here would wait for it.
      return;
    }
    LockSupport.unpark(engineThread);
    joinQuietly(engineThread);
    joinQuietly(commitThread);
  }

  private static void joinQuietly(Thread thread) {
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

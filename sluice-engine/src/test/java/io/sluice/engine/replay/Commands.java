package io.sluice.engine.replay;

import io.sluice.engine.job.UniqueKey;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * The commands a replay script sends the engine, one per API verb, and their generators. Every
 * field is raw randomness that {@link ReplayRun} interprets against what it knows at the time (a
 * pick is taken modulo the jobs or streams it knows), so any script is valid and shrinks freely.
 * Names are small on purpose: three queues, four budget keys, three unique and two batch keys,
 * two cron groups, so that commands meet each other's jobs, claims, batches and budgets.
 */
final class Commands {
  private Commands() {}

  static final int QUEUES = 3;
  static final int BUDGET_KEYS = 4;
  static final int UNIQUE_KEYS = 3;
  static final int BATCH_KEYS = 2;
  static final int CRON_GROUPS = 2;
  /** Every 2 s, every 5 s, at 0/13/26/39/52 s, every minute. */
  static final List<String> CRON_EXPRESSIONS =
      List.of("*/2 * * * * *", "*/5 * * * * *", "*/13 * * * * *", "0 * * * * *");

  /** What one loop wake does: a turn of commands, or time passing. */
  sealed interface Step {}

  /** Commands applied in one engine turn, then the loop's due work, commit and dispatch. */
  record Turn(List<Command> commands) implements Step {}

  /** The clock moves on; the idle loop wakes at every engine deadline on the way. */
  record Advance(long ms) implements Step {}

  /**
   * A turn of commands whose commit the store fails, so that the engine rolls it back. It never
   * opens or closes a stream: a stream is not stored, so one that began in a failed turn stays
   * open and one that ended stays ended (see {@code Rebuild}).
   */
  record FailedTurn(List<Command> commands) implements Step {}

  sealed interface Command {}

  record Enqueue(List<JobDraw> jobs, boolean bulk) implements Command {}

  /** {@code queueMask} 0 takes every queue; {@code prefetch} 0 is unlimited. */
  record OpenStream(int queueMask, int prefetch, boolean paced) implements Command {}

  /** {@code again} closes a stream that is already closed (must change nothing). */
  record CloseStream(int pick, boolean again) implements Command {}

  /** The transport wrote a paced stream's last delivery. */
  record Written(int pick) implements Command {}

  /** {@code stale} acks a job picked among all known, mostly not in flight. */
  record Ack(int pick, boolean stale) implements Command {}

  /** {@code POST /jobs/success}, with a malformed and an unknown id when {@code strangers}. */
  record AckAll(List<Integer> picks, boolean strangers) implements Command {}

  record Fail(int pick, FailKind kind, int delayMs, double jitter) implements Command {}

  enum FailKind {
    RETRY_AT_PAST,
    RETRY_AT_LATER,
    BACKOFF,
    KILL
  }

  record Patch(int pick, PatchDraw patch) implements Command {}

  /** A patch of every unfinished job in one queue. */
  record PatchWhere(int queue, PatchDraw patch) implements Command {}

  /**
   * {@code queue} -1 leaves the queue; {@code readyAtMs} -1 leaves ready_at, 0 sets it to null
   * (now), else that far ahead; {@code retention} 0 leaves it, 1 clears it, 2 sets completed_ms.
   */
  record PatchDraw(int queue, Integer priority, long readyAtMs, Integer retryLimit,
      int retention) {}

  record Delete(int pick) implements Command {}

  /** Deletes every job of one queue, in one status class when {@code statusClass} > 0. */
  record DeleteWhere(int queue, int statusClass) implements Command {}

  record Rebind(int pick, RebindDraw change) implements Command {}

  record RebindWhere(int queue, RebindDraw change) implements Command {}

  /** {@code kind}: 0 replace all, 1 add, 2 put, 3 patch cost, 4 remove. */
  record RebindDraw(int kind, BindDraw binding, List<BindDraw> all) {}

  record PutBudget(int key, PolicyDraw policy) implements Command {}

  record CreateBudget(int key, PolicyDraw policy) implements Command {}

  /** A merge patch; null fields are absent, {@code clearBurst} is {@code "burst": null}. */
  record PatchBudget(int key, Long allocation, String type, Long durationMs, Long burst,
      boolean clearBurst) implements Command {}

  record DeleteBudget(int key) implements Command {}

  record PutCronGroup(int group, Boolean paused, boolean zoned, List<CronDraw> entries)
      implements Command {}

  record PauseCronGroup(int group, boolean paused) implements Command {}

  record DeleteCronGroup(int group) implements Command {}

  /** Deletes every cron group, job and budget. */
  record Reset() implements Command {}

  /**
   * One enqueue request. {@code delayMs} 0 is ready now; {@code items} the payload's length (a
   * JSON array, which batches concatenate).
   */
  record JobDraw(int queue, int priority, int delayMs, JobOptions options,
      List<BindDraw> bindings, UniqueDraw unique, BatchDraw batch) {}

  /** {@code retention}: 0 server default, 1 completed kept 5 s, 2 completed and dead kept 0. */
  record JobOptions(int type, Integer retryLimit, int retention, int items) {}

  /** A binding to budget {@code key}; {@code createWith} null: the budget must exist. */
  record BindDraw(int key, long cost, PolicyDraw createWith) {}

  record PolicyDraw(boolean timeBased, long allocation, long durationMs, Long burst) {}

  record UniqueDraw(int key, UniqueKey.Scope scope) {}

  /** A batch folding while the combined payload has at most {@code maxItems} items. */
  record BatchDraw(int key, int maxItems) {}

  record CronDraw(int name, int expression, boolean ownZone, JobDraw template) {}

  // ---- generators ----------------------------------------------------------------------------

  static Arbitrary<List<Step>> scripts(int maxSteps) {
    return step().list().ofMinSize(1).ofMaxSize(maxSteps)
        .withSizeDistribution(RandomDistribution.uniform()).withoutEdgeCases();
  }

  /** Scripts in which one turn in about ten fails to commit. */
  static Arbitrary<List<Step>> scriptsWithFailedCommits(int maxSteps) {
    Arbitrary<Step> failed = command().filter(command -> !(command instanceof OpenStream)
        && !(command instanceof CloseStream)).list().ofMinSize(1).ofMaxSize(3)
        .map(FailedTurn::new);
    return Arbitraries.frequencyOf(Tuple.of(9, step()), Tuple.of(1, failed)).withoutEdgeCases()
        .list().ofMinSize(1).ofMaxSize(maxSteps)
        .withSizeDistribution(RandomDistribution.uniform()).withoutEdgeCases();
  }

  static Arbitrary<Step> step() {
    Arbitrary<Step> turn = command().list().ofMinSize(1).ofMaxSize(3).map(Turn::new);
    Arbitrary<Step> advance = Arbitraries.frequencyOf(
        Tuple.of(3, Arbitraries.longs().between(1, 1_000)),
        Tuple.of(3, Arbitraries.longs().between(1_001, 15_000)),
        Tuple.of(1, Arbitraries.longs().between(15_001, 90_000))).map(Advance::new);
    return Arbitraries.frequencyOf(Tuple.of(3, turn), Tuple.of(1, advance)).withoutEdgeCases();
  }

  @SuppressWarnings("unchecked")
  static Arbitrary<Command> command() {
    return Arbitraries.frequencyOf(
        Tuple.of(14, Combinators.combine(job().list().ofMinSize(1).ofMaxSize(3),
            Arbitraries.of(false, false, true)).as(Enqueue::new)),
        Tuple.of(5, Combinators.combine(Arbitraries.integers().between(0, (1 << QUEUES) - 1),
            Arbitraries.of(0, 1, 1, 2, 3), Arbitraries.of(false, false, true))
            .as(OpenStream::new)),
        Tuple.of(3, Combinators.combine(pick(), Arbitraries.of(false, false, false, true))
            .as(CloseStream::new)),
        Tuple.of(2, pick().map(Written::new)),
        Tuple.of(12, Combinators.combine(pick(), Arbitraries.of(false, false, false, true))
            .as(Ack::new)),
        Tuple.of(4, Combinators.combine(pick().list().ofMinSize(1).ofMaxSize(4),
            Arbitraries.of(false, false, true)).as(AckAll::new)),
        Tuple.of(6, Combinators.combine(pick(), Arbitraries.of(FailKind.class),
            Arbitraries.integers().between(0, 5_000),
            Arbitraries.doubles().between(0, 0.99)).as(Fail::new)),
        Tuple.of(4, Combinators.combine(pick(), patch()).as(Patch::new)),
        Tuple.of(1, Combinators.combine(queue(), patch()).as(PatchWhere::new)),
        Tuple.of(3, pick().map(Delete::new)),
        Tuple.of(1, Combinators.combine(queue(), Arbitraries.integers().between(0, 3))
            .as(DeleteWhere::new)),
        Tuple.of(3, Combinators.combine(pick(), rebind()).as(Rebind::new)),
        Tuple.of(1, Combinators.combine(queue(), rebind()).as(RebindWhere::new)),
        Tuple.of(4, Combinators.combine(budgetKey(), policy()).as(PutBudget::new)),
        Tuple.of(1, Combinators.combine(budgetKey(), policy()).as(CreateBudget::new)),
        Tuple.of(3, budgetPatch()),
        Tuple.of(2, budgetKey().map(DeleteBudget::new)),
        Tuple.of(4, Combinators.combine(cronGroup(), Arbitraries.of(false, true).injectNull(0.7),
            Arbitraries.of(false, false, true), cronEntry().list().ofMinSize(1).ofMaxSize(2))
            .as(PutCronGroup::new)),
        Tuple.of(1, Combinators.combine(cronGroup(), Arbitraries.of(true, false))
            .as(PauseCronGroup::new)),
        Tuple.of(1, cronGroup().map(DeleteCronGroup::new)),
        Tuple.of(1, Arbitraries.just(new Reset())));
  }

  static Arbitrary<Integer> pick() {
    return Arbitraries.integers().between(0, 63);
  }

  static Arbitrary<Integer> queue() {
    return Arbitraries.integers().between(0, QUEUES - 1);
  }

  static Arbitrary<Integer> budgetKey() {
    return Arbitraries.integers().between(0, BUDGET_KEYS - 1);
  }

  static Arbitrary<Integer> cronGroup() {
    return Arbitraries.integers().between(0, CRON_GROUPS - 1);
  }

  static Arbitrary<PolicyDraw> policy() {
    return Combinators.combine(Arbitraries.of(false, true), Arbitraries.longs().between(1, 4),
        Arbitraries.of(50L, 1_000L, 7_000L, 60_000L),
        Arbitraries.longs().between(1, 6).injectNull(0.6)).as(PolicyDraw::new);
  }

  static Arbitrary<Command> budgetPatch() {
    return Combinators.combine(budgetKey(), Arbitraries.longs().between(1, 5).injectNull(0.4),
        Arbitraries.of(null, null, null, "while_in_flight", "time_based"),
        Arbitraries.of(50L, 1_000L, 7_000L).injectNull(0.6),
        Arbitraries.longs().between(1, 6).injectNull(0.7),
        Arbitraries.of(false, false, false, true))
        .as((key, allocation, type, durationMs, burst, clearBurst) -> new PatchBudget(key,
            allocation, type, durationMs, clearBurst ? null : burst, clearBurst));
  }

  static Arbitrary<BindDraw> binding() {
    return Combinators.combine(budgetKey(), Arbitraries.longs().between(1, 3),
        policy().injectNull(0.3)).as(BindDraw::new);
  }

  static Arbitrary<JobDraw> job() {
    Arbitrary<JobOptions> options = Combinators.combine(Arbitraries.integers().between(0, 1),
        Arbitraries.of(0, 1, 3).injectNull(0.5), Arbitraries.of(0, 0, 1, 2),
        Arbitraries.integers().between(1, 3)).as(JobOptions::new);
    Arbitrary<UniqueDraw> unique = Combinators.combine(
        Arbitraries.integers().between(0, UNIQUE_KEYS - 1), Arbitraries.of(UniqueKey.Scope.class))
        .as(UniqueDraw::new);
    Arbitrary<BatchDraw> batch = Combinators.combine(
        Arbitraries.integers().between(0, BATCH_KEYS - 1), Arbitraries.integers().between(2, 6))
        .as(BatchDraw::new);
    return Combinators.combine(queue(), Arbitraries.integers().between(0, 3),
        Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just(0)),
            Tuple.of(1, Arbitraries.integers().between(1, 8_000))),
        options, binding().list().ofMaxSize(2), unique.injectNull(0.6), batch.injectNull(0.6))
        .as(JobDraw::new);
  }

  static Arbitrary<PatchDraw> patch() {
    return Combinators.combine(Arbitraries.integers().between(-1, QUEUES - 1),
        Arbitraries.integers().between(0, 3).injectNull(0.6),
        Arbitraries.of(-1L, -1L, 0L, 500L, 6_000L), Arbitraries.of(0, 2).injectNull(0.8),
        Arbitraries.of(0, 0, 1, 2)).as(PatchDraw::new);
  }

  static Arbitrary<RebindDraw> rebind() {
    return Combinators.combine(Arbitraries.integers().between(0, 4), binding(),
        binding().list().ofMaxSize(2)).as(RebindDraw::new);
  }

  static Arbitrary<CronDraw> cronEntry() {
    return Combinators.combine(Arbitraries.integers().between(0, 1),
        Arbitraries.integers().between(0, CRON_EXPRESSIONS.size() - 1),
        Arbitraries.of(false, false, true), job()).as(CronDraw::new);
  }
}

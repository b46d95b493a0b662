package io.sluice.engine.property;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * The operations a scenario drives through the engine. Every field is raw randomness that the
 * runner interprets against the state at the time (an index is taken modulo the number of
 * candidates, a cost modulo the capacity), so any list of operations is a valid scenario and
 * shrinking can drop or simplify any step.
 */
final class Ops {
  private Ops() {}

  static final int BUDGET_KEYS = 4;
  static final int QUEUES = 3;
  /** Partition values "p0".."p2" of a partitioned budget (X3). */
  static final int PARTITIONS = 3;

  sealed interface Op {}

  /** PUT /budgets/{key}: create or replace whole. */
  record PutBudget(int key, ModelPolicy policy) implements Op {}

  /** POST /budgets/{key}: create, never overwrite. */
  record CreateBudget(int key, ModelPolicy policy) implements Op {}

  /**
   * PATCH /budgets/{key}; null fields are absent, {@code clearBurst} is {@code "burst": null};
   * {@code durable} (X4) is sent only in durable profiles.
   */
  record PatchBudget(int key, Long allocation, String type, Long durationMs, Long burst,
      boolean clearBurst, Boolean durable) implements Op {}

  record DeleteBudget(int key) implements Op {}

  record Enqueue(List<JobGen> jobs) implements Op {}

  /** {@code queueMask} 0 means every queue; {@code prefetch} 0 means unlimited. */
  record OpenWorker(int queueMask, int prefetch) implements Op {}

  /** Acks an in-flight job; {@code stale} acks one that is not in flight (must be refused). */
  record Ack(int pick, boolean stale) implements Op {}

  record Fail(int pick, FailKind kind, int delayMs) implements Op {}

  /**
   * Acks an in-flight job settling every binding (X5) at an actual cost of {@code (actualRaw × (i
   * + 1)) mod 25} for its i-th binding: often below what it paid (a refund), often above the
   * capacity (debt).
   */
  record Settle(int pick, int actualRaw) implements Op {}

  /** Disconnects a worker; {@code again} picks among already closed ones (must be a no-op). */
  record CloseWorker(int pick, boolean again) implements Op {}

  record Advance(long ms) implements Op {}

  /** POST /budgets/{key}/pause {"for_ms": forMs} (X6). */
  record PauseBudget(int key, long forMs) implements Op {}

  /**
   * A failure reported as throttled (X6) by an in-flight job, naming one of its bindings
   * ({@code binding} modulo their number), or budget {@code binding} modulo the keys for a job
   * bound to none (must be refused).
   */
  record Throttle(int pick, int binding, long retryAfterMs) implements Op {}

  /** POST /budgets/{key}/partitions/{partition}/pause {"for_ms": forMs} (X6 under X3). */
  record PausePartition(int key, int partition, long forMs) implements Op {}

  /** The server process dies and starts again on the same store (X4: durable buckets resume). */
  record Restart() implements Op {}

  enum FailKind {
    RETRY_IN_PAST,
    RETRY_NOW,
    RETRY_LATER,
    BACKOFF,
    KILL
  }

  /** {@code delayMs} 0 means ready now, else {@code ready_at} that far in the future. */
  record JobGen(int queue, int priority, List<BindGen> bindings, int delayMs) {}

  /**
   * A binding to budget {@code key}; the cost is {@code 1 + (costRaw - 1) % capacity}; to a
   * partitioned budget it names partition {@code partition} (X3).
   */
  record BindGen(int key, int costRaw, ModelPolicy createWith, int partition) {}

  /**
   * Relative weights of the operations, and which strategies the budgets may have; with
   * {@code durable}, policies are durable or not at random (X4); with {@code partitioned}, about
   * one policy in three is partitioned (X3).
   */
  record Profile(int put, int create, int patch, int delete, int enqueue, int openWorker,
      int ack, int settle, int fail, int close, int advance, int pause, int pausePartition,
      int throttle, int restart, boolean timeBased, boolean concurrency, boolean durable,
      boolean partitioned, int maxBindings) {
    static final Profile MIXED = new Profile(6, 2, 6, 2, 25, 6, 12, 6, 8, 4, 20, 2, 1, 4, 0,
        true, true, false, true, 3);
    static final Profile CONCURRENCY_ONLY = new Profile(6, 2, 8, 2, 25, 6, 16, 4, 8, 6, 12, 2, 1,
        4, 0, false, true, false, true, 3);
    static final Profile RATE_HEAVY = new Profile(4, 2, 4, 1, 25, 5, 10, 8, 6, 3, 30, 2, 1, 4, 0,
        true, false, false, true, 3);
    /** Rate and concurrency budgets, durable or not, across restarts of the server. */
    static final Profile RESTARTS = new Profile(4, 2, 4, 1, 25, 8, 12, 4, 6, 3, 30, 2, 1, 3, 5,
        true, true, true, true, 3);

    Profile withMaxBindings(int max) {
      return new Profile(put, create, patch, delete, enqueue, openWorker, ack, settle, fail,
          close, advance, pause, pausePartition, throttle, restart, timeBased, concurrency,
          durable, partitioned, max);
    }
  }

  /**
   * Scenarios of 1 to {@code maxSteps} operations, sizes drawn uniformly (so two thirds have 50
   * or more when {@code maxSteps} is 150); a failing one shrinks to the few steps that matter.
   */
  static Arbitrary<List<Op>> scenarios(Profile p, int maxSteps) {
    // No edge cases: jqwik would otherwise mix in runs of one repeated corner operation (the
    // first alternative with its smallest values), skewing the operation mix heavily.
    return operation(p).withoutEdgeCases().list().ofMinSize(1).ofMaxSize(maxSteps)
        .withSizeDistribution(RandomDistribution.uniform()).withoutEdgeCases();
  }

  @SuppressWarnings("unchecked")
  static Arbitrary<Op> operation(Profile p) {
    return Arbitraries.frequencyOf(
        Tuple.of(p.put(), Combinators.combine(key(), policy(p)).as(PutBudget::new)),
        Tuple.of(p.create(), Combinators.combine(key(), policy(p)).as(CreateBudget::new)),
        Tuple.of(p.patch(), patch(p)),
        Tuple.of(p.delete(), key().map(DeleteBudget::new)),
        Tuple.of(p.enqueue(), job(p).list().ofMinSize(1).ofMaxSize(4).map(Enqueue::new)),
        Tuple.of(p.openWorker(), Combinators.combine(
            Arbitraries.integers().between(0, (1 << QUEUES) - 1),
            Arbitraries.frequency(Tuple.of(3, 0), Tuple.of(2, 1), Tuple.of(2, 2), Tuple.of(1, 3)))
            .as(OpenWorker::new)),
        Tuple.of(p.ack(), Combinators.combine(pick(), Arbitraries.of(false, false, false, false,
            false, false, false, false, false, true)).as(Ack::new)),
        Tuple.of(p.settle(), Combinators.combine(pick(), Arbitraries.integers().between(0, 24))
            .as(Settle::new)),
        Tuple.of(p.fail(), Combinators.combine(pick(), Arbitraries.of(FailKind.class),
            Arbitraries.integers().between(0, 5_000)).as(Fail::new)),
        Tuple.of(p.close(), Combinators.combine(pick(),
            Arbitraries.of(false, false, false, true)).as(CloseWorker::new)),
        Tuple.of(p.advance(), advance()),
        Tuple.of(p.pause(), Combinators.combine(key(), pauseMs()).as(PauseBudget::new)),
        Tuple.of(p.throttle(), Combinators.combine(pick(), pick(), pauseMs())
            .as(Throttle::new)),
        Tuple.of(p.pausePartition(), Combinators.combine(key(),
            Arbitraries.integers().between(0, PARTITIONS - 1), pauseMs())
            .as(PausePartition::new)),
        Tuple.of(p.restart(), Arbitraries.just(new Restart())));
  }

  /** Pauses of 0 ms (no pause at all) to 2 minutes, most of them short. */
  static Arbitrary<Long> pauseMs() {
    return Arbitraries.frequencyOf(
        Tuple.of(1, Arbitraries.just(0L)),
        Tuple.of(4, Arbitraries.longs().between(1, 5_000)),
        Tuple.of(1, Arbitraries.longs().between(5_001, 120_000)));
  }

  static Arbitrary<Integer> key() {
    return Arbitraries.integers().between(0, BUDGET_KEYS - 1);
  }

  static Arbitrary<Integer> pick() {
    return Arbitraries.integers().between(0, 63);
  }

  static Arbitrary<Op> advance() {
    return Arbitraries.frequencyOf(
        Tuple.of(2, Arbitraries.just(0L)),
        Tuple.of(3, Arbitraries.longs().between(1, 20)),
        Tuple.of(4, Arbitraries.longs().between(21, 2_000)),
        Tuple.of(2, Arbitraries.longs().between(2_001, 300_000)))
        .map(Advance::new);
  }

  static Arbitrary<Long> duration() {
    return Arbitraries.oneOf(
        Arbitraries.of(1L, 7L, 100L, 1_000L, 10_000L, 60_000L),
        Arbitraries.longs().between(1, 60_000));
  }

  static Arbitrary<ModelPolicy> policy(Profile p) {
    Arbitrary<ModelPolicy> concurrency =
        Arbitraries.longs().between(1, 6).map(ModelPolicy::whileInFlight);
    Arbitrary<ModelPolicy> rate = Combinators.combine(
        Arbitraries.longs().between(1, 5), duration(),
        Arbitraries.longs().between(1, 8).injectNull(0.5))
        .as(ModelPolicy::timeBased);
    Arbitrary<ModelPolicy> either = p.timeBased() && p.concurrency()
        ? Arbitraries.oneOf(concurrency, rate)
        : p.timeBased() ? rate : concurrency;
    Arbitrary<ModelPolicy> durable = p.durable()
        ? Combinators.combine(either, Arbitraries.of(true, false)).as(ModelPolicy::withDurable)
        : either;
    return p.partitioned()
        ? Combinators.combine(durable, Arbitraries.of(true, false, false))
            .as(ModelPolicy::withPartitioned)
        : durable;
  }

  static Arbitrary<Op> patch(Profile p) {
    Arbitrary<String> type;
    if (p.timeBased() && p.concurrency()) {
      type = Arbitraries.frequency(Tuple.of(6, "-"), Tuple.of(2, "while_in_flight"),
          Tuple.of(2, "time_based"));
    } else {
      type = Arbitraries.frequency(Tuple.of(6, "-"),
          Tuple.of(2, p.timeBased() ? "time_based" : "while_in_flight"));
    }
    // Concurrency-only scenarios never send a period or a burst: those patches would only be
    // refused as invalid, or (with a type change) switch to time_based.
    Arbitrary<Long> durationMs = p.timeBased() ? duration().injectNull(0.6)
        : Arbitraries.just((Long) null);
    Arbitrary<Long> burst = p.timeBased() ? Arbitraries.longs().between(1, 8).injectNull(0.7)
        : Arbitraries.just((Long) null);
    Arbitrary<Boolean> clearBurst = p.timeBased()
        ? Arbitraries.frequency(Tuple.of(9, false), Tuple.of(1, true))
        : Arbitraries.just(false);
    // Absent (left as it is) most of the time; in durable profiles sometimes turned on or off.
    Arbitrary<Boolean> durable = p.durable()
        ? Arbitraries.frequency(Tuple.of(6, "-"), Tuple.of(1, "on"), Tuple.of(1, "off"))
            .map(d -> d.equals("-") ? null : (Boolean) d.equals("on"))
        : Arbitraries.just((Boolean) null);
    return Combinators.combine(key(), Arbitraries.longs().between(1, 8).injectNull(0.4), type,
            durationMs, burst, clearBurst, durable)
        .as((key, allocation, t, d, b, clear, dur) -> new PatchBudget(key, allocation,
            t.equals("-") ? null : t, d,
            clear ? null : b, // JSON cannot say "burst": null and "burst": n at once
            clear, dur));
  }

  static Arbitrary<JobGen> job(Profile p) {
    Arbitrary<BindGen> binding = Combinators.combine(key(),
        Arbitraries.integers().between(1, 8), policy(p),
        Arbitraries.integers().between(0, PARTITIONS - 1)).as(BindGen::new);
    return Combinators.combine(
        Arbitraries.integers().between(0, QUEUES - 1),
        Arbitraries.integers().between(0, 3),
        binding.list().ofMinSize(0).ofMaxSize(p.maxBindings()),
        Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.just(0)),
            Tuple.of(2, Arbitraries.integers().between(1, 5_000))))
        .as(JobGen::new);
  }
}

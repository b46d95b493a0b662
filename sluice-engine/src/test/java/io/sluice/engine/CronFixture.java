package io.sluice.engine;

import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.BudgetBook;
import io.sluice.engine.budget.BudgetPolicy;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.cron.CronExpression;
import io.sluice.engine.cron.EntrySpec;
import io.sluice.engine.cron.GroupSpec;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.Mutation;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link CronAdmin} and its {@link CronFiring} over a real budget book and a recording host, for tests driven by hand:
 * nothing reads a clock, so every call names its time. The server zone is UTC.
 */
final class CronFixture implements CronFiring.Host {
  static final ZoneId SERVER_ZONE = ZoneOffset.UTC;

  final BudgetBook budgets = new BudgetBook(8);
  final List<Mutation> writes = new ArrayList<>();
  final CronAdmin crons = new CronAdmin(writes::add, budgets, SERVER_ZONE);
  final CronFiring firing = new CronFiring(crons, this, new JobIdGenerator());
  final List<Mutation> firedWrites = new ArrayList<>();
  final List<NewJob> enqueued = new ArrayList<>();
  /** When set, every enqueue fails with it. */
  SluiceException enqueueFailure;

  @Override
  public void enqueue(NewJob job, long nowMs) {
    if (enqueueFailure != null) {
      throw enqueueFailure;
    }
    enqueued.add(job);
  }

  @Override
  public void writeFired(Mutation mutation) {
    firedWrites.add(mutation);
  }

  BudgetAdmin budgetAdmin() {
    return new BudgetAdmin(budgets, crons, writes::add);
  }

  void defineBudget(String key, long allocation, long nowMs) {
    budgets.create(key, BudgetPolicy.validate(concurrency(allocation)), false, nowMs);
  }

  static PolicySpec concurrency(long allocation) {
    return new PolicySpec(allocation, "while_in_flight", null, null);
  }

  /** Epoch milliseconds of an ISO instant such as {@code 2024-01-01T00:30:00Z}. */
  static long at(String instant) {
    return Instant.parse(instant).toEpochMilli();
  }

  static NewJob template(String type, BindingRequest... budgets) {
    return new NewJob(null, type, "cron-queue", NewJob.DEFAULT_PRIORITY, null, null, null, null,
        "{\"n\":1}".getBytes(StandardCharsets.UTF_8), List.of(budgets));
  }

  static EntrySpec entry(String name, String expression) {
    return entry(name, expression, null, null);
  }

  static EntrySpec entry(String name, String expression, ZoneId zone, Boolean paused) {
    return new EntrySpec(name, CronExpression.parse(expression), zone, paused, template(name));
  }

  static EntrySpec entry(String name, String expression, NewJob job) {
    return new EntrySpec(name, CronExpression.parse(expression), null, null, job);
  }

  static GroupSpec group(EntrySpec... entries) {
    return new GroupSpec(null, null, List.of(entries));
  }

  static GroupSpec groupWith(Boolean paused, ZoneId zone, EntrySpec... entries) {
    return new GroupSpec(paused, zone, List.of(entries));
  }
}

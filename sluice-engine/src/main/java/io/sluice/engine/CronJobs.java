package io.sluice.engine;

import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.Mutation;
import java.util.List;

/** What cron administration and firing do to the rest of the engine: write and enqueue. */
final class CronJobs implements CronAdmin.Host {
  private final Writes writes;
  private final Enqueuing enqueuing;

  CronJobs(Writes writes, Enqueuing enqueuing) {
    this.writes = writes;
    this.enqueuing = enqueuing;
  }

  @Override
  public void write(Mutation mutation) {
    writes.write(mutation);
  }

  @Override
  public void enqueue(NewJob job, long nowMs) {
    enqueuing.enqueueAll(List.of(job), false, nowMs);
  }

  @Override
  public void writeFired(Mutation mutation) {
    writes.enqueueWrite(mutation);
  }
}

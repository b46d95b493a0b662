package io.sluice.engine;

import io.sluice.engine.job.NewJob;
import io.sluice.engine.store.Mutation;
import java.util.List;

/** What cron firing does to the rest of the engine: enqueue, and write the schedule change. */
final class CronJobs implements CronFiring.Host {
  private final Writes writes;
  private final Enqueuing enqueuing;

  CronJobs(Writes writes, Enqueuing enqueuing) {
    this.writes = writes;
    this.enqueuing = enqueuing;
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

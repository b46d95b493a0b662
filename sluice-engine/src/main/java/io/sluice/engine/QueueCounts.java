package io.sluice.engine;

import io.sluice.engine.job.JobStatus;

/** How many jobs one queue holds in each status, as the engine last published it. */
public record QueueCounts(long scheduled, long ready, long inFlight, long completed, long dead) {
  public static final QueueCounts NONE = new QueueCounts(0, 0, 0, 0, 0);

  public long of(JobStatus status) {
    return switch (status) {
      case SCHEDULED -> scheduled;
      case READY -> ready;
      case IN_FLIGHT -> inFlight;
      case COMPLETED -> completed;
      case DEAD -> dead;
    };
  }

  public long total() {
    return scheduled + ready + inFlight + completed + dead;
  }
}

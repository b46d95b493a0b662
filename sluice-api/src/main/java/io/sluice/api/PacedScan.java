package io.sluice.api;

import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.JobStore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A store scan that rests twice as long as it works, once it has run for a while, so that a
 * long query (a count, a jq filter over a million jobs) takes at most a third of a core from the
 * engine and the workers on a small machine. Short page reads never rest.
 */
final class PacedScan implements JobStore.JobScan {
  private static final int CHECK_EVERY = 4096;
  private static final long FREE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  private static final int REST_PER_WORK = 2;

  private final JobStore.JobScan scan;
  private final long startedNanos = System.nanoTime();
  private long workStartedNanos = startedNanos;
  private int sinceCheck;

  PacedScan(JobStore.JobScan scan) {
    this.scan = scan;
  }

  @Override
  public boolean hasNext() {
    return scan.hasNext();
  }

  @Override
  public JobSnapshot next() {
    if (++sinceCheck == CHECK_EVERY) {
      sinceCheck = 0;
      long now = System.nanoTime();
      if (now - startedNanos > FREE_NANOS) {
        LockSupport.parkNanos((now - workStartedNanos) * REST_PER_WORK);
        workStartedNanos = System.nanoTime();
      }
    }
    return scan.next();
  }

  @Override
  public void close() {
    scan.close();
  }
}

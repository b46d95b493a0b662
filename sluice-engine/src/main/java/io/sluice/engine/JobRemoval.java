package io.sluice.engine;

import io.sluice.engine.job.Job;
import io.sluice.engine.store.IndexEntry;

/**
 * Removes a job for good (deleted, purged, or finished with no retention): from the live set,
 * its claim and open batch, the payload cache, and with its payload and errors from disk.
 */
final class JobRemoval {
  private final JobTable jobs;
  private final PayloadCache payloads;
  private final UniqueClaims claims;
  private final OpenBatches openBatches;
  private final Writes writes;

  JobRemoval(JobTable jobs, PayloadCache payloads, UniqueClaims claims, OpenBatches openBatches,
      Writes writes) {
    this.jobs = jobs;
    this.payloads = payloads;
    this.claims = claims;
    this.openBatches = openBatches;
    this.writes = writes;
  }

  /** Forgets a job taken out of every index; {@code stored} is its stored record's entry. */
  void forget(Job job, IndexEntry stored) {
    payloads.take(job);
    claims.forgotten(job);
    openBatches.forgotten(job);
    jobs.remove(job);
    writes.write(JobWrites.delete(job, stored));
  }

  /** Forgets a job whose indexed fields did not change since its last write. */
  void forget(Job job) {
    forget(job, JobWrites.storedEntry(job));
  }
}

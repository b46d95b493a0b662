package io.sluice.store.rocks;

import io.sluice.engine.job.JobId;
import io.sluice.engine.store.Mutation;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The payloads that job records written earlier in one batch hold, for a rewrite later in the
 * batch that carries its record's payload over ({@link Mutation.PutJob#payloadInRecord}). Built
 * at the batch's first such rewrite and then moved forward with it, so a batch that rewrites
 * many jobs reads its mutations once, not once per rewrite.
 */
final class EarlierRecords {
  private final List<Mutation> mutations;
  /** By job, what its latest record in the batch holds; null: none, or the record is deleted. */
  private Map<JobId, byte[]> payloads;
  private int seen;

  EarlierRecords(List<Mutation> mutations) {
    this.mutations = mutations;
  }

  /**
   * Whether a mutation before {@code at} wrote or deleted the job's record; if so,
   * {@link #payload} tells what that left.
   */
  boolean wrote(JobId id, int at) {
    if (payloads == null) {
      payloads = new HashMap<>();
    }
    for (; seen < at; seen++) {
      if (mutations.get(seen) instanceof Mutation.PutJob put) {
        if (put.payload() != null || !put.payloadInRecord()) {
          payloads.put(put.job().id(), put.payload());
        }
      } else if (mutations.get(seen) instanceof Mutation.DeleteJob delete) {
        payloads.put(delete.id(), null);
      }
    }
    return payloads.containsKey(id);
  }

  /** The payload the job's latest record in the batch holds, or null. */
  byte[] payload(JobId id) {
    return payloads.get(id);
  }
}

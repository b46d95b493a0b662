package io.sluice.engine;

import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.NewJob;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The batching of one enqueue request, decided before anything changes (API.md §4.6): which
 * requests fold into which job, with what resulting payloads, and which open a new batch. A fold
 * that fails aborts the whole request, so nothing may be applied until every fold has run.
 */
final class BatchPlan {
  /** A job that requests fold into: an open batch from before, or one this request creates. */
  sealed interface Target {}

  record OpenJob(Job job) implements Target {}

  record CreatedHere(int index) implements Target {}

  private static final class Slot {
    final Target target;
    final BatchConfig config;
    byte[] payload;

    Slot(Target target, BatchConfig config, byte[] payload) {
      this.target = target;
      this.config = config;
      this.payload = payload;
    }
  }

  private final Map<Integer, Target> folds = new HashMap<>();
  private final Set<Integer> opening = new HashSet<>();
  private final Map<Target, byte[]> foldedPayloads = new LinkedHashMap<>();

  private BatchPlan() {}

  static BatchPlan of(List<NewJob> requests, OpenBatches open, BatchExpressions expressions,
      boolean bulk, long nowMs) {
    BatchPlan plan = new BatchPlan();
    Map<String, Slot> slots = new HashMap<>();
    for (int i = 0; i < requests.size(); i++) {
      NewJob request = requests.get(i);
      boolean scheduled = request.readyAtMs() != null && request.readyAtMs() > nowMs;
      if (request.batch() == null || scheduled) {
        continue; // a scheduled batched job never folds nor opens a batch
      }
      Slot slot = slots.computeIfAbsent(request.batch().key(), key -> openSlot(open, key));
      if (slot != null && expressions.shouldFold(slot.config, slot.payload, request.payload())) {
        try {
          slot.payload = expressions.fold(slot.config, slot.payload, request.payload());
        } catch (SluiceException.Unprocessable e) {
          throw bulk ? new SluiceException.Unprocessable("jobs[" + i + "]: " + e.getMessage()) : e;
        }
        plan.folds.put(i, slot.target);
        plan.foldedPayloads.put(slot.target, slot.payload);
        continue;
      }
      plan.opening.add(i);
      slots.put(request.batch().key(),
          new Slot(new CreatedHere(i), request.batch(), request.payload()));
    }
    return plan;
  }

  private static Slot openSlot(OpenBatches open, String key) {
    Job job = open.openFor(key);
    return job == null ? null : new Slot(new OpenJob(job), job.batch(), job.payload());
  }

  /** The job request {@code index} folds into, or null if it creates a job. */
  Target foldTarget(int index) {
    // Checked first: a lookup boxes the index, for every job of a request that batches nothing.
    return folds.isEmpty() ? null : folds.get(index);
  }

  /** True when request {@code index} creates the new open batch of its key. */
  boolean opens(int index) {
    return !opening.isEmpty() && opening.contains(index);
  }

  /** Each folded-into job with its payload after the request's last fold into it. */
  Map<Target, byte[]> foldedPayloads() {
    return foldedPayloads;
  }
}

package io.sluice.engine.dispatch;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.OrderedJobs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Dispatch candidates per queue in {@link Job#DISPATCH_ORDER}: priority first, FIFO within a
 * priority. Only the {@link Dispatcher} that owns it changes it.
 *
 * <p>Owned by the engine thread. A job must be removed before its queue or priority changes.
 */
final class ReadyIndex {
  private final Map<String, OrderedJobs> byQueue = new HashMap<>();
  private int size;

  void add(Job job) {
    if (byQueue.computeIfAbsent(job.queue(), q -> new OrderedJobs(Job.DISPATCH_ORDER)).add(job)) {
      size++;
    }
  }

  boolean remove(Job job) {
    OrderedJobs jobs = byQueue.get(job.queue());
    if (jobs == null || !jobs.remove(job)) {
      return false;
    }
    size--;
    if (jobs.isEmpty()) {
      byQueue.remove(job.queue());
    }
    return true;
  }

  /** True when any of the given queues (all queues when null) has a candidate. */
  boolean offersTo(Set<String> queues) {
    if (size == 0) {
      // The common case of a pass after the only ready job left: no iterator made.
      return false;
    }
    if (queues == null) {
      return true;
    }
    for (String queue : queues) {
      if (byQueue.containsKey(queue)) {
        return true;
      }
    }
    return false;
  }

  /** The best job across the given queues (all queues when null), without removing it. */
  Job best(Set<String> queues) {
    Job best = null;
    if (queues == null) {
      for (OrderedJobs jobs : byQueue.values()) {
        best = better(best, jobs.first());
      }
    } else {
      for (String queue : queues) {
        OrderedJobs jobs = byQueue.get(queue);
        if (jobs != null) {
          best = better(best, jobs.first());
        }
      }
    }
    return best;
  }

  /** The best job after {@code after} in dispatch order, across the given queues (all: null). */
  Job bestAfter(Set<String> queues, Job after) {
    Job best = null;
    if (queues == null) {
      for (OrderedJobs jobs : byQueue.values()) {
        Job next = jobs.higher(after);
        if (next != null) {
          best = better(best, next);
        }
      }
    } else {
      for (String queue : queues) {
        OrderedJobs jobs = byQueue.get(queue);
        Job next = jobs == null ? null : jobs.higher(after);
        if (next != null) {
          best = better(best, next);
        }
      }
    }
    return best;
  }

  private static Job better(Job a, Job b) {
    return a == null || Job.DISPATCH_ORDER.compare(b, a) < 0 ? b : a;
  }

  /** Every candidate in dispatch order. */
  List<Job> inOrder() {
    List<Job> all = new ArrayList<>(size);
    for (OrderedJobs jobs : byQueue.values()) {
      all.addAll(jobs.toList());
    }
    all.sort(Job.DISPATCH_ORDER);
    return all;
  }

  int size() {
    return size;
  }
}

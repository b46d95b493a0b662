package io.sluice.engine.dispatch;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.OrderedJobs;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Runnable jobs per queue, ordered by (priority, id): priority first, FIFO within a priority.
 *
 * <p>Owned by the engine thread. A job must be removed before its queue or priority changes.
 */
public final class ReadyIndex {
  static final Comparator<Job> DISPATCH_ORDER =
      Comparator.<Job>comparingInt(Job::priority).thenComparing(Job::id);

  private final Map<String, OrderedJobs> byQueue = new HashMap<>();
  private int size;

  public void add(Job job) {
    if (byQueue.computeIfAbsent(job.queue(), q -> new OrderedJobs(DISPATCH_ORDER)).add(job)) {
      size++;
    }
  }

  public boolean remove(Job job) {
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

  /** The best job across the given queues (all queues when null), without removing it. */
  public Job best(Set<String> queues) {
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
  public Job bestAfter(Set<String> queues, Job after) {
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
    return a == null || DISPATCH_ORDER.compare(b, a) < 0 ? b : a;
  }

  public int size() {
    return size;
  }
}

package io.sluice.engine.budget;

import io.sluice.engine.job.Job;
import io.sluice.engine.job.RankedJobs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * A pool's parked jobs, one waiting queue per job queue, each in {@link Job#DISPATCH_ORDER}.
 * Nearly every pool's jobs are in one job queue, and a partitioned budget may hold a million
 * pools (X3), so the first queue is held in fields and a map is made only for a second.
 */
final class WaitingQueues {
  private String firstQueue;
  private RankedJobs first;
  /** Waiting queues of the other job queues; null while there are none. */
  private Map<String, RankedJobs> others;

  /** Adds the job to its queue's waiting queue; false when it was there already. */
  boolean add(Job job, long cost) {
    String queue = job.queue();
    if (first == null) {
      firstQueue = queue;
      first = new RankedJobs(Job.DISPATCH_ORDER);
    }
    if (queue.equals(firstQueue)) {
      return first.add(job, cost);
    }
    if (others == null) {
      others = new HashMap<>(2);
    }
    return others.computeIfAbsent(queue, q -> new RankedJobs(Job.DISPATCH_ORDER)).add(job, cost);
  }

  /** Removes the job; false when it was not waiting here. An emptied queue is dropped. */
  boolean remove(Job job) {
    String queue = job.queue();
    RankedJobs waiting = get(queue);
    if (waiting == null || !waiting.remove(job)) {
      return false;
    }
    if (waiting.isEmpty()) {
      drop(queue);
    }
    return true;
  }

  private void drop(String queue) {
    if (!queue.equals(firstQueue)) {
      others.remove(queue);
    } else if (others == null) {
      firstQueue = null;
      first = null;
    } else {
      Map.Entry<String, RankedJobs> next = others.entrySet().iterator().next();
      firstQueue = next.getKey();
      first = next.getValue();
      others.remove(firstQueue);
    }
    if (others != null && others.isEmpty()) {
      others = null;
    }
  }

  /** The waiting queue of one job queue, or null when none of its jobs waits here. */
  RankedJobs get(String queue) {
    if (queue.equals(firstQueue)) {
      return first;
    }
    return others == null ? null : others.get(queue);
  }

  boolean isEmpty() {
    return first == null;
  }

  /** True when a job waiting here, in any queue, comes before {@code job} in dispatch order. */
  boolean anyBefore(Job job) {
    if (first != null && Job.DISPATCH_ORDER.compare(first.first(), job) < 0) {
      return true;
    }
    if (others != null) {
      for (RankedJobs waiting : others.values()) {
        if (Job.DISPATCH_ORDER.compare(waiting.first(), job) < 0) {
          return true;
        }
      }
    }
    return false;
  }

  /** The jobs waiting here, in every queue, that come before {@code job} in dispatch order. */
  RankedJobs.Ahead before(Job job) {
    RankedJobs.Ahead ahead = first == null ? RankedJobs.Ahead.NONE : first.before(job);
    if (others != null) {
      for (RankedJobs waiting : others.values()) {
        ahead = ahead.plus(waiting.before(job));
      }
    }
    return ahead;
  }

  /** Every waiting queue, by job queue. */
  void forEach(BiConsumer<String, RankedJobs> action) {
    if (first != null) {
      action.accept(firstQueue, first);
    }
    if (others != null) {
      others.forEach(action);
    }
  }

  /** The job queues that have jobs waiting here (a copy). */
  List<String> queues() {
    List<String> queues = new ArrayList<>(others == null ? 1 : others.size() + 1);
    forEach((queue, waiting) -> queues.add(queue));
    return queues;
  }
}

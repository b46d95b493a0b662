package io.sluice.api.events;

import io.sluice.engine.Names;
import io.sluice.engine.QueueCounts;
import io.sluice.engine.job.JobStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A copy of the engine's published job counts, per queue and summed over queues, taken once per
 * tick so that one tick's messages agree with each other and the next tick can tell what changed.
 */
record JobCounts(QueueCounts totals, SortedMap<String, QueueCounts> queues) {
  static final JobCounts EMPTY = new JobCounts(QueueCounts.NONE, Collections.emptySortedMap());

  /** Copies {@code published}, which the engine thread keeps changing. */
  static JobCounts of(Map<String, QueueCounts> published) {
    SortedMap<String, QueueCounts> queues = new TreeMap<>(Names.BYTE_ORDER);
    long[] sums = new long[JobStatus.COUNT];
    for (Map.Entry<String, QueueCounts> entry : published.entrySet()) {
      QueueCounts counts = entry.getValue();
      if (counts.total() == 0) {
        continue;
      }
      queues.put(entry.getKey(), counts);
      for (JobStatus status : JobStatus.values()) {
        sums[status.ordinal()] += counts.of(status);
      }
    }
    return new JobCounts(new QueueCounts(sums[JobStatus.SCHEDULED.ordinal()],
        sums[JobStatus.READY.ordinal()], sums[JobStatus.IN_FLIGHT.ordinal()],
        sums[JobStatus.COMPLETED.ordinal()], sums[JobStatus.DEAD.ordinal()]),
        Collections.unmodifiableSortedMap(queues));
  }

  long of(JobStatus status) {
    return totals.of(status);
  }

  /** Jobs of {@code status} in the queues that {@code search}'s queue terms select. */
  long inQueuesOf(Search search, JobStatus status) {
    long sum = 0;
    for (Map.Entry<String, QueueCounts> entry : queues.entrySet()) {
      if (search.matchesQueue(entry.getKey())) {
        sum += entry.getValue().of(status);
      }
    }
    return sum;
  }

  /** The statuses whose total differs from {@code before}'s. */
  Set<JobStatus> changedStatuses(JobCounts before) {
    Set<JobStatus> changed = EnumSet.noneOf(JobStatus.class);
    for (JobStatus status : JobStatus.values()) {
      if (of(status) != before.of(status)) {
        changed.add(status);
      }
    }
    return changed;
  }

  /** The queues whose counts differ from {@code before}'s (appeared, changed or emptied). */
  List<String> changedQueues(JobCounts before) {
    List<String> changed = new ArrayList<>();
    for (Map.Entry<String, QueueCounts> entry : queues.entrySet()) {
      if (!entry.getValue().equals(before.queues.get(entry.getKey()))) {
        changed.add(entry.getKey());
      }
    }
    for (String queue : before.queues.keySet()) {
      if (!queues.containsKey(queue)) {
        changed.add(queue);
      }
    }
    changed.sort(Names.BYTE_ORDER);
    return changed;
  }
}

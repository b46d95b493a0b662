package io.sluice.api.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.engine.QueueCounts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code sluice_jobs{queue, status}}: the counts the engine publishes per queue, read at each
 * scrape. A queue whose counts are those of the last scrape keeps its three data points, and the
 * family is the last scrape's while no queue changed: with a thousand queues, making labels and
 * data points was a third of an idle scrape, and a drain changes one queue at a time.
 */
final class QueueCountsCollector implements MultiCollector {
  private static final MetricMetadata JOBS =
      new MetricMetadata("sluice_jobs", "Jobs per queue and status");

  /** One queue's data points, in the order the library sorts them into, and their source. */
  private record QueuePoints(QueueCounts counts, List<GaugeDataPointSnapshot> points) {}

  private final Map<String, QueueCounts> counts;
  private final SortedKeys sortedQueues = new SortedKeys();
  private Map<String, QueuePoints> lastPoints = Map.of();
  private MetricSnapshots lastSnapshots;

  QueueCountsCollector(Map<String, QueueCounts> counts) {
    this.counts = counts;
  }

  @Override
  public synchronized MetricSnapshots collect() {
    SortedKeys.Keys keys = sortedQueues.of(counts.keySet());
    String[] queues = keys.sorted();
    Map<String, QueuePoints> points = new HashMap<>(queues.length * 2);
    List<GaugeDataPointSnapshot> family = new ArrayList<>(queues.length * 3);
    boolean changed = !keys.sameAsLast();
    for (String queue : queues) {
      QueueCounts now = counts.get(queue);
      if (now == null) {
        changed = true; // removed since the names were read
        sortedQueues.forget();
        continue;
      }
      QueuePoints previous = lastPoints.get(queue);
      QueuePoints current;
      if (previous != null && sameGauges(previous.counts(), now)) {
        current = previous;
      } else {
        current = new QueuePoints(now, dataPoints(queue, now));
        changed = true;
      }
      points.put(queue, current);
      family.addAll(current.points());
    }
    if (!changed && lastSnapshots != null) {
      return lastSnapshots;
    }
    lastPoints = points;
    lastSnapshots = new MetricSnapshots(new GaugeSnapshot(JOBS, family));
    return lastSnapshots;
  }

  /** Only what the family shows: an acknowledgement changes {@code completed} alone. */
  private static boolean sameGauges(QueueCounts a, QueueCounts b) {
    return a.scheduled() == b.scheduled() && a.ready() == b.ready()
        && a.inFlight() == b.inFlight();
  }

  /** The statuses in label order: {@code in_flight}, {@code ready}, {@code scheduled}. */
  private static List<GaugeDataPointSnapshot> dataPoints(String queue, QueueCounts counts) {
    return List.of(point(counts.inFlight(), queue, "in_flight"),
        point(counts.ready(), queue, "ready"),
        point(counts.scheduled(), queue, "scheduled"));
  }

  private static GaugeDataPointSnapshot point(long value, String queue, String status) {
    return new GaugeDataPointSnapshot(value, Labels.of("queue", queue, "status", status), null);
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(JOBS.getPrometheusName());
  }
}

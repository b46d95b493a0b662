package io.sluice.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.engine.QueueCounts;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** {@code sluice_jobs}: the engine's counts per queue, reusing what did not change, only that. */
class QueueCountsCollectorTest {
  private final Map<String, QueueCounts> counts = new ConcurrentHashMap<>(Map.of(
      "a", new QueueCounts(1, 2, 3, 0, 0), "b", new QueueCounts(0, 5, 0, 0, 0)));
  private final QueueCountsCollector collector = new QueueCountsCollector(counts);

  private static List<GaugeDataPointSnapshot> points(MetricSnapshots snapshots) {
    return ((GaugeSnapshot) snapshots.get(0)).getDataPoints();
  }

  /** "queue/status" → value. */
  private static Map<String, Double> values(MetricSnapshots snapshots) {
    Map<String, Double> values = new TreeMap<>();
    for (GaugeDataPointSnapshot point : points(snapshots)) {
      values.put(point.getLabels().get("queue") + "/" + point.getLabels().get("status"),
          point.getValue());
    }
    return values;
  }

  @Test
  void everyQueueHasItsThreeStatuses() {
    assertThat(values(collector.collect())).containsExactlyEntriesOf(new TreeMap<>(Map.of(
        "a/scheduled", 1.0, "a/ready", 2.0, "a/in_flight", 3.0,
        "b/scheduled", 0.0, "b/ready", 5.0, "b/in_flight", 0.0)));
  }

  @Test
  void unchangedCountsGiveTheSameSnapshots() {
    MetricSnapshots first = collector.collect();
    counts.put("a", new QueueCounts(1, 2, 3, 0, 0)); // equal counts, published anew

    assertThat(collector.collect()).isSameAs(first);
  }

  @Test
  void aChangedQueueIsReadAgainAndTheOthersKeepTheirDataPoints() {
    MetricSnapshots first = collector.collect();
    DataPointSnapshot bReady = points(first).stream()
        .filter(p -> p.getLabels().get("queue").equals("b")).findFirst().orElseThrow();

    counts.put("a", new QueueCounts(0, 2, 4, 1, 0));
    MetricSnapshots second = collector.collect();

    assertThat(second).isNotSameAs(first);
    assertThat(values(second)).containsEntry("a/scheduled", 0.0).containsEntry("a/in_flight", 4.0)
        .containsEntry("b/ready", 5.0);
    assertThat(points(second)).anySatisfy(p -> assertThat(p).isSameAs(bReady));
  }

  @Test
  void addedAndRemovedQueuesShow() {
    collector.collect();

    counts.put("c", new QueueCounts(0, 1, 0, 0, 0));
    assertThat(values(collector.collect())).containsEntry("c/ready", 1.0);
    counts.remove("a");
    assertThat(values(collector.collect()).keySet()).noneMatch(k -> k.startsWith("a/"))
        .contains("b/ready", "c/ready");
  }
}

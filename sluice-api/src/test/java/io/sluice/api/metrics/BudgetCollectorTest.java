package io.sluice.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.engine.Engine;
import io.sluice.engine.EngineConfig;
import io.sluice.engine.Turn;
import io.sluice.engine.budget.BindingRequest;
import io.sluice.engine.budget.PolicySpec;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.NewJob;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Budget families: the last snapshots are reused while no figure changed, and only then. */
class BudgetCollectorTest {
  private static final PolicySpec TWO_PER_SECOND = new PolicySpec(2, "time_based", 1000L, null);

  private final AtomicLong nowMs = new AtomicLong(1_000_000);
  private final InstantSource clock = () -> Instant.ofEpochMilli(nowMs.get());
  private final Engine engine = new Engine(EngineConfig.defaults());
  private final JobIdGenerator ids = new JobIdGenerator();
  private final List<JobSnapshot> delivered = new ArrayList<>();
  private BudgetCollector collector;

  @BeforeEach
  void budgets() {
    engine.budgetAdmin().put("a", TWO_PER_SECOND, nowMs.get());
    engine.budgetAdmin().put("b", TWO_PER_SECOND, nowMs.get());
    engine.takeTurn();
    collector = new BudgetCollector(engine.budgetStates(), clock);
  }

  /** Family name → budget → value. */
  private static Map<String, Map<String, Double>> values(MetricSnapshots snapshots) {
    Map<String, Map<String, Double>> values = new TreeMap<>();
    for (MetricSnapshot family : snapshots) {
      Map<String, Double> byBudget = new TreeMap<>();
      for (DataPointSnapshot point : family.getDataPoints()) {
        double value = family instanceof GaugeSnapshot
            ? ((GaugeSnapshot.GaugeDataPointSnapshot) point).getValue()
            : ((io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot)
                point).getValue();
        byBudget.put(point.getLabels().get("budget"), value);
      }
      values.put(family.getMetadata().getPrometheusName(), byBudget);
    }
    return values;
  }

  /** A job bound to budget {@code key}, enqueued, made durable and dispatched to a worker. */
  private void runJobOn(String key) {
    long now = nowMs.get();
    engine.enqueue(List.of(new NewJob(ids.next(now), "t", "q", NewJob.DEFAULT_PRIORITY, null,
        null, null, null, "{}".getBytes(StandardCharsets.UTF_8),
        List.of(new BindingRequest(key, 1L, null)), null, null)), now);
    Turn turn = engine.takeTurn();
    engine.committed(turn.newJobs(), now);
    engine.durable(turn);
    engine.dispatch(now);
  }

  @Test
  void unchangedFiguresGiveTheSameSnapshots() {
    MetricSnapshots first = collector.collect();
    nowMs.addAndGet(5_000); // full buckets stay full

    assertThat(collector.collect()).isSameAs(first);
  }

  @Test
  void aDispatchGivesNewSnapshotsWithItsFigures() {
    engine.openSession(Set.of("q"), 0, delivered::addAll);
    MetricSnapshots before = collector.collect();

    runJobOn("a");

    assertThat(delivered).hasSize(1);
    MetricSnapshots after = collector.collect();
    assertThat(after).isNotSameAs(before);
    assertThat(values(after).get("sluice_budget_in_flight_jobs"))
        .containsEntry("a", 1.0).containsEntry("b", 0.0);
    assertThat(values(after).get("sluice_budget_tokens"))
        .containsEntry("a", 1.0).containsEntry("b", 2.0);
    assertThat(values(after).get("sluice_budget_dispatched")).containsEntry("a", 1.0);
  }

  @Test
  void aRefillAloneGivesNewSnapshots() {
    engine.openSession(Set.of("q"), 0, delivered::addAll);
    runJobOn("a");
    MetricSnapshots spent = collector.collect();
    assertThat(collector.collect()).isSameAs(spent);

    nowMs.addAndGet(500); // one token back at 2 per second

    MetricSnapshots refilled = collector.collect();
    assertThat(refilled).isNotSameAs(spent);
    assertThat(values(refilled).get("sluice_budget_tokens")).containsEntry("a", 2.0);
  }

  @Test
  void anAddedOrDeletedBudgetGivesNewSnapshots() {
    MetricSnapshots two = collector.collect();

    engine.budgetAdmin().put("c", TWO_PER_SECOND, nowMs.get());
    engine.takeTurn(); // the turn's end publishes budget states
    MetricSnapshots three = collector.collect();
    engine.budgetAdmin().delete("a");
    engine.takeTurn();
    MetricSnapshots twoAgain = collector.collect();

    assertThat(three).isNotSameAs(two);
    assertThat(values(three).get("sluice_budget_tokens")).containsOnlyKeys("a", "b", "c");
    assertThat(twoAgain).isNotSameAs(three);
    assertThat(values(twoAgain).get("sluice_budget_tokens")).containsOnlyKeys("b", "c");
  }
}

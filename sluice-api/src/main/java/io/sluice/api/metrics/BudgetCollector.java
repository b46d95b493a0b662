package io.sluice.api.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.engine.budget.BudgetState;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Every budget's figures, read at scrape time from the state the engine publishes (X1), which
 * never waits for the engine. With thousands of budgets the scrape is mostly this collector and
 * the writing of its output, so it does the least it can: one pass over the budgets in key order
 * fills all six families into lists sized up front, each budget's label set built once, and every
 * family then finds its data points already in the order the library sorts them into (a third of
 * the time of handing them over in hash order, measured with 8,192 budgets).
 */
final class BudgetCollector implements MultiCollector {
  private static final MetricMetadata TOKENS = new MetricMetadata("sluice_budget_tokens",
      "Whole tokens a budget has now");
  private static final MetricMetadata WAITING = new MetricMetadata("sluice_budget_waiting_jobs",
      "Ready jobs waiting in a budget's queues");
  private static final MetricMetadata IN_FLIGHT = new MetricMetadata(
      "sluice_budget_in_flight_jobs", "Jobs bound to a budget that are in flight");
  private static final MetricMetadata PARTITIONS = new MetricMetadata("sluice_budget_partitions",
      "Partitions of a budget");
  /** Counter names go without {@code _total}, which the exposition formats append. */
  private static final MetricMetadata DISPATCHED = new MetricMetadata("sluice_budget_dispatched",
      "Dispatches charged to a budget since the server started");
  private static final MetricMetadata THROTTLED = new MetricMetadata("sluice_budget_throttled",
      "Times a budget was found unable to pay for a job heading its queues");

  private final Map<String, BudgetState> states;
  private final InstantSource clock;

  BudgetCollector(Map<String, BudgetState> states, InstantSource clock) {
    this.states = states;
    this.clock = clock;
  }

  @Override
  public MetricSnapshots collect() {
    long nowMs = clock.millis();
    String[] keys = states.keySet().toArray(String[]::new);
    Arrays.sort(keys);
    List<GaugeDataPointSnapshot> tokens = new ArrayList<>(keys.length);
    List<GaugeDataPointSnapshot> waiting = new ArrayList<>(keys.length);
    List<GaugeDataPointSnapshot> inFlight = new ArrayList<>(keys.length);
    List<GaugeDataPointSnapshot> partitions = new ArrayList<>(keys.length);
    List<CounterDataPointSnapshot> dispatched = new ArrayList<>(keys.length);
    List<CounterDataPointSnapshot> throttled = new ArrayList<>(keys.length);
    for (String key : keys) {
      BudgetState state = states.get(key);
      if (state == null) {
        continue; // deleted since the keys were read
      }
      Labels budget = Labels.of("budget", key);
      Long tokensNow = state.tokensAt(nowMs);
      if (tokensNow != null) { // a partitioned budget has tokens only per partition
        tokens.add(gauge(tokensNow, budget));
      }
      waiting.add(gauge(state.waitingJobs(), budget));
      inFlight.add(gauge(state.inFlightJobs(), budget));
      partitions.add(gauge(state.partitions(), budget));
      dispatched.add(counter(state.dispatched(), budget));
      throttled.add(counter(state.throttled(), budget));
    }
    return new MetricSnapshots(new GaugeSnapshot(TOKENS, tokens),
        new GaugeSnapshot(WAITING, waiting), new GaugeSnapshot(IN_FLIGHT, inFlight),
        new GaugeSnapshot(PARTITIONS, partitions), new CounterSnapshot(DISPATCHED, dispatched),
        new CounterSnapshot(THROTTLED, throttled));
  }

  private static GaugeDataPointSnapshot gauge(double value, Labels labels) {
    return new GaugeDataPointSnapshot(value, labels, null);
  }

  private static CounterDataPointSnapshot counter(double value, Labels labels) {
    return new CounterDataPointSnapshot(value, labels, null, 0);
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(TOKENS.getPrometheusName(), WAITING.getPrometheusName(),
        IN_FLIGHT.getPrometheusName(), PARTITIONS.getPrometheusName(),
        DISPATCHED.getPrometheusName(), THROTTLED.getPrometheusName());
  }
}

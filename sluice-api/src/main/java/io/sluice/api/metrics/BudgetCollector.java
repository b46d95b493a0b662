package io.sluice.api.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.sluice.engine.budget.BudgetState;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

/**
 * Every budget's figures, read at scrape time from the state the engine publishes (X1), which
 * never waits for the engine: one pass over the budgets fills all six families, each budget's
 * label built once.
 */
final class BudgetCollector implements MultiCollector {
  private static final String TOKENS = "sluice_budget_tokens";
  private static final String WAITING = "sluice_budget_waiting_jobs";
  private static final String IN_FLIGHT = "sluice_budget_in_flight_jobs";
  private static final String PARTITIONS = "sluice_budget_partitions";
  /** Counter names without {@code _total}, which the exposition formats append. */
  private static final String DISPATCHED = "sluice_budget_dispatched";
  private static final String THROTTLED = "sluice_budget_throttled";

  private final Map<String, BudgetState> states;
  private final InstantSource clock;

  BudgetCollector(Map<String, BudgetState> states, InstantSource clock) {
    this.states = states;
    this.clock = clock;
  }

  @Override
  public MetricSnapshots collect() {
    long nowMs = clock.millis();
    GaugeSnapshot.Builder tokens = GaugeSnapshot.builder().name(TOKENS)
        .help("Whole tokens a budget has now");
    GaugeSnapshot.Builder waiting = GaugeSnapshot.builder().name(WAITING)
        .help("Ready jobs waiting in a budget's queues");
    GaugeSnapshot.Builder inFlight = GaugeSnapshot.builder().name(IN_FLIGHT)
        .help("Jobs bound to a budget that are in flight");
    GaugeSnapshot.Builder partitions = GaugeSnapshot.builder().name(PARTITIONS)
        .help("Partitions of a budget");
    CounterSnapshot.Builder dispatched = CounterSnapshot.builder().name(DISPATCHED)
        .help("Dispatches charged to a budget since the server started");
    CounterSnapshot.Builder throttled = CounterSnapshot.builder().name(THROTTLED)
        .help("Times a budget was found unable to pay for a job heading its queues");
    for (Map.Entry<String, BudgetState> entry : states.entrySet()) {
      Labels budget = Labels.of("budget", entry.getKey());
      BudgetState state = entry.getValue();
      tokens.dataPoint(gauge(state.tokensAt(nowMs), budget));
      waiting.dataPoint(gauge(state.waitingJobs(), budget));
      inFlight.dataPoint(gauge(state.inFlightJobs(), budget));
      // Partitioned budgets (X3) do not exist yet, so no budget has partitions.
      partitions.dataPoint(gauge(0, budget));
      dispatched.dataPoint(counter(state.dispatched(), budget));
      throttled.dataPoint(counter(state.throttled(), budget));
    }
    return new MetricSnapshots(tokens.build(), waiting.build(), inFlight.build(),
        partitions.build(), dispatched.build(), throttled.build());
  }

  private static GaugeDataPointSnapshot gauge(double value, Labels labels) {
    return GaugeDataPointSnapshot.builder().value(value).labels(labels).build();
  }

  private static CounterDataPointSnapshot counter(double value, Labels labels) {
    return CounterDataPointSnapshot.builder().value(value).labels(labels).build();
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(TOKENS, WAITING, IN_FLIGHT, PARTITIONS, DISPATCHED, THROTTLED);
  }
}

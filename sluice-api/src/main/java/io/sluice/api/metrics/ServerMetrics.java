package io.sluice.api.metrics;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryPoolAllocationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmNativeMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import io.sluice.api.http.Router;
import io.sluice.engine.EngineObserver;
import io.sluice.engine.QueueCounts;
import io.sluice.engine.budget.BudgetState;
import io.vertx.core.Vertx;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.time.InstantSource;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The server's Prometheus registry (X7): the JVM's standard metrics and HTTP requests from the
 * start, then whatever the server wires in: the engine's published figures and events, storage
 * size, connected workers. Gauges are read at scrape time from state other threads publish, so a
 * scrape never sends the engine a command and never waits for it.
 */
public final class ServerMetrics {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final HttpRequestMetrics http;
  /** Set once the engine is watched; until then no job has been counted. */
  private volatile JobEventMetrics jobEvents;
  /** Every budget's families, once the engine is watched. */
  private volatile CachedRendering budgetFamilies;

  public ServerMetrics() {
    registerJvmMetrics(registry);
    http = new HttpRequestMetrics(registry);
  }

  /**
   * The library's JVM and process metrics, the native memory ones only when the JVM tracks native
   * memory: finding out through the diagnostic command took about 70 ms of every start, for
   * families that are empty without {@code -XX:NativeMemoryTracking}.
   */
  static void registerJvmMetrics(PrometheusRegistry registry) {
    JvmThreadsMetrics.builder().register(registry);
    JvmBufferPoolMetrics.builder().register(registry);
    JvmClassLoadingMetrics.builder().register(registry);
    JvmCompilationMetrics.builder().register(registry);
    JvmGarbageCollectorMetrics.builder().register(registry);
    JvmMemoryPoolAllocationMetrics.builder().register(registry);
    JvmMemoryMetrics.builder().register(registry);
    if (tracksNativeMemory()) {
      JvmNativeMemoryMetrics.builder().register(registry);
    }
    JvmRuntimeInfoMetric.builder().register(registry);
    ProcessMetrics.builder().register(registry);
  }

  /** Whether the JVM runs with {@code -XX:NativeMemoryTracking} other than {@code off}. */
  static boolean tracksNativeMemory() {
    try {
      return !"off".equals(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
          .getVMOption("NativeMemoryTracking").getValue());
    } catch (RuntimeException e) {
      return false; // not a HotSpot JVM: there is no such option to read
    }
  }

  /**
   * Exposes jobs per queue and status and every budget's state, read at each scrape from the
   * maps the engine publishes; returns the observer the engine must be given for the per-queue
   * counters and histograms and the commit times.
   */
  public EngineObserver watchEngine(Map<String, QueueCounts> queueCounts,
      Map<String, BudgetState> budgetStates, InstantSource clock) {
    registry.register(new QueueCountsCollector(queueCounts));
    // Outside the registry: rendered apart and kept while no budget changes (CachedRendering).
    budgetFamilies = new CachedRendering(new BudgetCollector(budgetStates, clock));
    jobEvents = new JobEventMetrics(registry);
    return jobEvents;
  }

  /** Jobs enqueued, completed and failed since the server started, over all queues. */
  public JobTotals jobTotals() {
    JobEventMetrics events = jobEvents;
    return events == null ? JobTotals.NONE : events.totals();
  }

  /** Exposes the bytes the store's data takes ({@code sluice_storage_bytes}). */
  public void watchStorage(LongSupplier storedBytes) {
    GaugeWithCallback.builder()
        .name("sluice_storage_bytes")
        .help("Bytes the stored data takes: live table files and unflushed write buffers")
        .unit(Unit.BYTES)
        .callback(gauge -> gauge.call(storedBytes.getAsLong()))
        .register(registry);
  }

  /** Exposes how many take streams are open ({@code sluice_workers_connected}). */
  public void watchWorkers(IntSupplier openStreams) {
    GaugeWithCallback.builder()
        .name("sluice_workers_connected")
        .help("Open take streams")
        .callback(gauge -> gauge.call(openStreams.getAsInt()))
        .register(registry);
  }

  public HttpRequestMetrics http() {
    return http;
  }

  /** Adds {@code GET /metrics}, scraped on Vert.x worker threads. */
  public void serve(Vertx vertx, Router router) {
    new MetricsEndpoint(vertx, registry, () -> budgetFamilies).register(router);
  }
}

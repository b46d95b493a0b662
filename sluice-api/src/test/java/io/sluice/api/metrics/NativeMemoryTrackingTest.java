package io.sluice.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Native memory families are registered only for a JVM that tracks native memory. */
class NativeMemoryTrackingTest {
  @Test
  void thisJvmDoesNotTrackNativeMemory() {
    // Surefire starts the test JVM without -XX:NativeMemoryTracking.
    assertThat(ServerMetrics.tracksNativeMemory()).isFalse();
  }

  private static List<String> families(PrometheusRegistry registry) {
    return registry.scrape().stream().map(snapshot -> snapshot.getMetadata().getName())
        .sorted().toList();
  }

  @Test
  void theFamiliesAreTheLibrarysAllButNativeMemoryWithoutIt() {
    PrometheusRegistry ours = new PrometheusRegistry();
    ServerMetrics.registerJvmMetrics(ours);
    PrometheusRegistry library = new PrometheusRegistry();
    JvmMetrics.builder().register(library);

    assertThat(families(ours)).contains("jvm_memory_used_bytes", "jvm_threads_current")
        .isEqualTo(families(library).stream()
            .filter(name -> !name.startsWith("jvm_native_memory")).toList());
  }
}

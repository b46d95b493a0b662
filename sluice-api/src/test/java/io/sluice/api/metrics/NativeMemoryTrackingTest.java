package io.sluice.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Native memory families are registered only for a JVM that tracks native memory. */
class NativeMemoryTrackingTest {
  @Test
  void readsTheLastTrackingFlagOfTheJvmArguments() {
    assertThat(ServerMetrics.tracksNativeMemory(List.of("-Xmn32m"))).isFalse();
    assertThat(ServerMetrics.tracksNativeMemory(List.of("-XX:NativeMemoryTracking=summary")))
        .isTrue();
    assertThat(ServerMetrics.tracksNativeMemory(List.of("-XX:NativeMemoryTracking=detail")))
        .isTrue();
    assertThat(ServerMetrics.tracksNativeMemory(List.of("-XX:NativeMemoryTracking=off")))
        .isFalse();
    assertThat(ServerMetrics.tracksNativeMemory(List.of(
        "-XX:NativeMemoryTracking=summary", "-XX:NativeMemoryTracking=off"))).isFalse();
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

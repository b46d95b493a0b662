package io.sluice.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A rendering is reused only for the very snapshots, writer and escaping it was made from. */
class CachedRenderingTest {
  private static final ExpositionFormats FORMATS = ExpositionFormats.init();
  private static final ExpositionFormatWriter TEXT = FORMATS.getPrometheusTextFormatWriter();
  private static final ExpositionFormatWriter OPEN = FORMATS.getOpenMetricsTextFormatWriter();

  private final AtomicReference<MetricSnapshots> current = new AtomicReference<>(gauge(1));
  private final CachedRendering rendering = new CachedRendering(current::get);

  private static MetricSnapshots gauge(double value) {
    return MetricSnapshots.of(new GaugeSnapshot(new MetricMetadata("g", "a gauge"),
        List.of(new GaugeDataPointSnapshot(value, Labels.of("budget", "b"), null))));
  }

  private String render(ExpositionFormatWriter writer) throws IOException {
    return new String(rendering.render(writer, EscapingScheme.DEFAULT), StandardCharsets.UTF_8);
  }

  @Test
  void theSameSnapshotsGiveTheSameBytes() throws IOException {
    byte[] first = rendering.render(TEXT, EscapingScheme.DEFAULT);

    assertThat(rendering.render(TEXT, EscapingScheme.DEFAULT)).isSameAs(first);
  }

  @Test
  void newSnapshotsAreRenderedAgain() throws IOException {
    assertThat(render(TEXT)).contains("g{budget=\"b\"} 1.0");

    current.set(gauge(2));

    assertThat(render(TEXT)).contains("g{budget=\"b\"} 2.0").doesNotContain(" 1.0");
  }

  @Test
  void anotherWriterRendersAgain() throws IOException {
    String text = render(TEXT);

    String open = render(OPEN);

    assertThat(text).doesNotContain("# EOF");
    assertThat(open).endsWith("# EOF\n");
    assertThat(render(TEXT)).isEqualTo(text);
  }
}

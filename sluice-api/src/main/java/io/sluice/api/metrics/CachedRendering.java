package io.sluice.api.metrics;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A collector's families as a writer renders them, kept while the collector hands back the same
 * snapshots (as {@link BudgetCollector} does while no budget's figures change), so a scrape of
 * thousands of idle budgets copies their text instead of writing it again.
 */
final class CachedRendering {
  private record Rendering(MetricSnapshots source, ExpositionFormatWriter writer,
      EscapingScheme escaping, byte[] bytes) {}

  private final MultiCollector collector;
  private final AtomicReference<Rendering> last = new AtomicReference<>();

  CachedRendering(MultiCollector collector) {
    this.collector = collector;
  }

  /** The collector's families now, rendered by {@code writer}: whole, trailer included. */
  byte[] render(ExpositionFormatWriter writer, EscapingScheme escaping) throws IOException {
    MetricSnapshots snapshots = collector.collect();
    Rendering previous = last.get();
    if (previous != null && previous.source() == snapshots && previous.writer() == writer
        && previous.escaping() == escaping) {
      return previous.bytes();
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(
        previous == null ? 64 * 1024 : previous.bytes().length + 1024);
    writer.write(out, snapshots, escaping);
    byte[] bytes = out.toByteArray();
    last.set(new Rendering(snapshots, writer, escaping, bytes));
    return bytes;
  }
}

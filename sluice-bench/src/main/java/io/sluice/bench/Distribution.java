package io.sluice.bench;

import java.util.Arrays;
import java.util.Map;

/**
 * Exact percentiles of a modest number of nanosecond samples (thousands to tens of thousands):
 * sorted copy, nearest-rank. Signed samples are allowed (lateness can be negative).
 */
record Distribution(int count, long p50, long p90, long p99, long max, long min) {

  static final Distribution EMPTY = new Distribution(0, 0, 0, 0, 0, 0);

  static Distribution of(long[] samples) {
    if (samples.length == 0) {
      return EMPTY;
    }
    long[] sorted = samples.clone();
    Arrays.sort(sorted);
    return new Distribution(sorted.length, percentile(sorted, 50), percentile(sorted, 90), percentile(sorted, 99),
        sorted[sorted.length - 1], sorted[0]);
  }

  /** Nearest-rank percentile of sorted samples: the smallest value with at least p% at or below it. */
  static long percentile(long[] sorted, double p) {
    if (sorted.length == 0) {
      throw new IllegalArgumentException("no samples");
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
  }

  /** Median; the mean of the two middle values for an even count. */
  static long median(long[] samples) {
    if (samples.length == 0) {
      throw new IllegalArgumentException("no samples");
    }
    long[] sorted = samples.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : Math.floorDiv(sorted[n / 2 - 1] + sorted[n / 2], 2);
  }

  /** "p50 0.412  p99 1.730  max 3.002" in milliseconds. */
  String describeMs() {
    return String.format("p50 %.3f  p90 %.3f  p99 %.3f  max %.3f", ms(p50), ms(p90), ms(p99), ms(max));
  }

  /** Adds {prefix}_p50_ms, _p90_ms, _p99_ms, _max_ms (and _n) to a RESULT map. */
  void putMs(Map<String, Object> m, String prefix) {
    m.put(prefix + "_n", count);
    m.put(prefix + "_p50_ms", ThroughputResult.round(ms(p50), 3));
    m.put(prefix + "_p90_ms", ThroughputResult.round(ms(p90), 3));
    m.put(prefix + "_p99_ms", ThroughputResult.round(ms(p99), 3));
    m.put(prefix + "_max_ms", ThroughputResult.round(ms(max), 3));
  }

  static double ms(long nanos) {
    return nanos / 1e6;
  }
}

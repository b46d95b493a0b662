package io.sluice.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Median of every numeric metric across runs. Only verified runs count: a run that lost or
 * duplicated jobs measured something other than the server's normal behaviour.
 */
final class Medians {
  private Medians() {}

  static Map<String, Object> of(List<Map<String, Object>> runs) {
    Map<String, List<Double>> values = new LinkedHashMap<>();
    for (Map<String, Object> run : runs) {
      for (Map.Entry<String, Object> e : run.entrySet()) {
        if (e.getValue() instanceof Number n) {
          values.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(n.doubleValue());
        }
      }
    }
    Map<String, Object> medians = new LinkedHashMap<>();
    for (Map.Entry<String, List<Double>> e : values.entrySet()) {
      double m = median(e.getValue());
      // Whole numbers stay whole so the JSON reads like the per-run lines.
      medians.put(e.getKey(), m == Math.rint(m) && Math.abs(m) < 1e15 ? (Object) (long) m : ThroughputResult.round(m, 3));
    }
    return medians;
  }

  static double median(List<Double> xs) {
    double[] a = xs.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(a);
    int n = a.length;
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
  }
}

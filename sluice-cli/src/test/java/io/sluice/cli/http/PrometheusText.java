package io.sluice.cli.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A strict parser of the Prometheus text exposition format (0.0.4) and of OpenMetrics text 1.0,
 * for tests: it fails on any line it does not understand, on a sample whose family has no
 * {@code # TYPE}, on a sample name a family of that type cannot have, on a series given twice,
 * on histogram buckets that are not cumulative or whose {@code +Inf} bucket is not the count, and
 * (OpenMetrics) on a missing {@code # EOF}. The client library has no parser, and testing its
 * output with its own code would prove nothing.
 */
final class PrometheusText {
  /** One time series: a sample name and its labels, sorted by name. */
  record Series(String name, Map<String, String> labels) {}

  private final Map<String, String> types = new LinkedHashMap<>();
  private final Map<Series, Double> samples = new LinkedHashMap<>();
  private final boolean openMetrics;

  private PrometheusText(boolean openMetrics) {
    this.openMetrics = openMetrics;
  }

  static PrometheusText parsePrometheus(String text) {
    return new PrometheusText(false).parse(text);
  }

  static PrometheusText parseOpenMetrics(String text) {
    return new PrometheusText(true).parse(text);
  }

  /** The type a {@code # TYPE} line gave the family, or null. */
  String type(String family) {
    return types.get(family);
  }

  /** The value of the series with exactly these labels ({@code name, value} pairs), or null. */
  Double value(String sample, String... labelPairs) {
    Map<String, String> labels = new TreeMap<>();
    for (int i = 0; i < labelPairs.length; i += 2) {
      labels.put(labelPairs[i], labelPairs[i + 1]);
    }
    return samples.get(new Series(sample, labels));
  }

  /** Every series of one sample name, in the order they appeared. */
  List<Series> series(String sample) {
    return samples.keySet().stream().filter(s -> s.name().equals(sample)).toList();
  }

  private PrometheusText parse(String text) {
    if (!text.endsWith("\n")) {
      throw new IllegalArgumentException("exposition does not end with a newline");
    }
    String[] lines = text.split("\n", -1);
    int end = lines.length - 1; // the empty string after the last newline
    if (openMetrics) {
      if (end == 0 || !lines[end - 1].equals("# EOF")) {
        throw new IllegalArgumentException("OpenMetrics exposition does not end with # EOF");
      }
      end--;
    }
    for (int i = 0; i < end; i++) {
      try {
        line(lines[i]);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("line " + (i + 1) + ": " + lines[i] + ": "
            + e.getMessage(), e);
      }
    }
    checkHistograms();
    return this;
  }

  private void line(String line) {
    if (line.startsWith("# TYPE ")) {
      String[] parts = line.substring(7).split(" ");
      if (parts.length != 2 || types.put(parts[0], parts[1]) != null) {
        throw new IllegalArgumentException("bad or repeated TYPE");
      }
    } else if (line.startsWith("# HELP ") || (openMetrics && line.startsWith("# UNIT "))) {
      return;
    } else if (line.isEmpty() || line.startsWith("#")) {
      throw new IllegalArgumentException("unexpected line");
    } else {
      sample(line);
    }
  }

  private void sample(String line) {
    int nameEnd = 0;
    while (nameEnd < line.length() && line.charAt(nameEnd) != '{'
        && line.charAt(nameEnd) != ' ') {
      nameEnd++;
    }
    String name = line.substring(0, nameEnd);
    if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
      throw new IllegalArgumentException("bad metric name");
    }
    Map<String, String> labels = new TreeMap<>();
    int at = nameEnd;
    if (at < line.length() && line.charAt(at) == '{') {
      at = labels(line, at + 1, labels);
    }
    if (at >= line.length() || line.charAt(at) != ' ') {
      throw new IllegalArgumentException("no value");
    }
    String[] rest = line.substring(at + 1).split(" ");
    if (rest.length > 2) {
      throw new IllegalArgumentException("trailing text");
    }
    checkFamily(name);
    if (samples.put(new Series(name, labels), number(rest[0])) != null) {
      throw new IllegalArgumentException("series repeated");
    }
  }

  /** Reads {@code name="value",...}} from {@code at}; returns the index after the brace. */
  private static int labels(String line, int at, Map<String, String> labels) {
    while (line.charAt(at) != '}') {
      int eq = line.indexOf('=', at);
      String name = line.substring(at, eq);
      if (!name.matches("[a-zA-Z_][a-zA-Z0-9_]*") || line.charAt(eq + 1) != '"') {
        throw new IllegalArgumentException("bad label");
      }
      StringBuilder value = new StringBuilder();
      int i = eq + 2;
      for (char c = line.charAt(i); c != '"'; c = line.charAt(++i)) {
        if (c == '\\') {
          char escaped = line.charAt(++i);
          value.append(switch (escaped) {
            case '\\' -> '\\';
            case '"' -> '"';
            case 'n' -> '\n';
            default -> throw new IllegalArgumentException("bad escape \\" + escaped);
          });
        } else {
          value.append(c);
        }
      }
      if (labels.put(name, value.toString()) != null) {
        throw new IllegalArgumentException("label repeated");
      }
      at = i + 1;
      if (line.charAt(at) == ',') {
        at++;
      }
    }
    return at + 1;
  }

  private static double number(String text) {
    return switch (text) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(text);
    };
  }

  /** The sample must belong to a declared family, with a suffix its type allows. */
  private void checkFamily(String name) {
    for (Map.Entry<String, String> family : types.entrySet()) {
      String base = family.getKey();
      if (!name.startsWith(base)) {
        continue;
      }
      String suffix = name.substring(base.length());
      List<String> allowed = switch (family.getValue()) {
        case "counter" -> openMetrics ? List.of("_total", "_created") : List.of("", "_total");
        case "histogram" -> List.of("_bucket", "_count", "_sum", "_created");
        case "summary" -> List.of("", "_count", "_sum", "_created");
        case "info" -> List.of("_info");
        default -> List.of("");
      };
      if (allowed.contains(suffix)) {
        return;
      }
    }
    throw new IllegalArgumentException("no # TYPE declares a family for this sample");
  }

  private void checkHistograms() {
    for (Map.Entry<String, String> family : types.entrySet()) {
      if (!family.getValue().equals("histogram")) {
        continue;
      }
      String base = family.getKey();
      for (Series count : series(base + "_count")) {
        List<Double> buckets = new ArrayList<>();
        Double infinite = null;
        for (Series bucket : series(base + "_bucket")) {
          Map<String, String> others = new TreeMap<>(bucket.labels());
          String le = others.remove("le");
          if (others.equals(count.labels())) {
            buckets.add(samples.get(bucket));
            if (number(le) == Double.POSITIVE_INFINITY) {
              infinite = samples.get(bucket);
            }
          }
        }
        for (int i = 1; i < buckets.size(); i++) {
          if (buckets.get(i) < buckets.get(i - 1)) {
            throw new IllegalArgumentException(base + " buckets not cumulative: " + buckets);
          }
        }
        if (!samples.get(count).equals(infinite)) {
          throw new IllegalArgumentException(base + " +Inf bucket " + infinite + " is not the"
              + " count " + samples.get(count) + " for " + count.labels());
        }
      }
    }
  }
}

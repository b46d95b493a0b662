package io.sluice.cli.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The test parser reads what it should and refuses what a scrape must never contain. */
class PrometheusTextTest {
  private static final String HISTOGRAM = """
      # TYPE t_seconds histogram
      t_seconds_bucket{q="a",le="1.0"} %s
      t_seconds_bucket{q="a",le="+Inf"} %s
      t_seconds_count{q="a"} %s
      t_seconds_sum{q="a"} 1.5
      """;

  @Test
  void readsValuesByNameAndLabelsWithEscapes() {
    PrometheusText text = PrometheusText.parsePrometheus("""
        # HELP c_total A counter
        # TYPE c_total counter
        c_total{path="/a\\"b\\\\",code="200"} 3.0
        # TYPE g gauge
        g 1.5E-4
        """);

    assertThat(text.value("c_total", "code", "200", "path", "/a\"b\\")).isEqualTo(3.0);
    assertThat(text.value("g")).isEqualTo(1.5E-4);
    assertThat(text.value("g", "x", "y")).isNull();
    assertThat(text.type("c_total")).isEqualTo("counter");
  }

  @Test
  void refusesASampleWithoutAType() {
    assertThatThrownBy(() -> PrometheusText.parsePrometheus("x 1\n"))
        .hasMessageContaining("no # TYPE");
  }

  @Test
  void refusesASeriesGivenTwice() {
    assertThatThrownBy(() -> PrometheusText.parsePrometheus("# TYPE g gauge\ng 1\ng 2\n"))
        .hasMessageContaining("repeated");
  }

  @Test
  void checksHistogramBucketsAgainstTheCount() {
    assertThat(PrometheusText.parsePrometheus(HISTOGRAM.formatted(1, 2, 2))
        .value("t_seconds_count", "q", "a")).isEqualTo(2);
    assertThatThrownBy(() -> PrometheusText.parsePrometheus(HISTOGRAM.formatted(3, 2, 2)))
        .hasMessageContaining("not cumulative");
    assertThatThrownBy(() -> PrometheusText.parsePrometheus(HISTOGRAM.formatted(1, 2, 3)))
        .hasMessageContaining("is not the count");
  }

  @Test
  void openMetricsMustEndWithEofAndNameCountersByFamily() {
    String counter = "# TYPE c counter\nc_total 1.0\n";

    assertThat(PrometheusText.parseOpenMetrics(counter + "# EOF\n").value("c_total"))
        .isEqualTo(1.0);
    assertThatThrownBy(() -> PrometheusText.parseOpenMetrics(counter))
        .hasMessageContaining("# EOF");
    assertThatThrownBy(() -> PrometheusText.parseOpenMetrics("# TYPE c counter\nc 1.0\n# EOF\n"))
        .hasMessageContaining("no # TYPE");
  }
}

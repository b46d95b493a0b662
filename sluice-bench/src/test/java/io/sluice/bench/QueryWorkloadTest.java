package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueryWorkloadTest {

  private static TimedGets.Answer answer(int status, String body) {
    return new TimedGets.Answer("/jobs?queue=q", status, Buffer.buffer(body), 1_000_000);
  }

  private static final String PAGE = "{\"jobs\":[{\"id\":\"a\",\"queue\":\"q\"},{\"id\":\"b\",\"queue\":\"q\"}],"
      + "\"pages\":{\"self\":\"/jobs?order=asc&limit=2&queue=q\",\"next\":\"/jobs?from=b&order=asc&limit=2&queue=q\","
      + "\"prev\":null}}";

  @Test
  void percentEncodesTheJqFilterLikeTheIssue() {
    assertThat(QueryWorkload.percentEncode(QueryWorkload.JQ_FILTER)).isEqualTo(".kind%20%3D%3D%20%22k3%22");
  }

  @Test
  void acceptsAMatchingPage() {
    QueryWorkload.Page p = QueryWorkload.check(answer(200, PAGE), 2, 2, true, "queue", "q");
    assertThat(p.firstId()).isEqualTo("a");
    assertThat(p.lastId()).isEqualTo("b");
    assertThat(p.next()).isEqualTo("/jobs?from=b&order=asc&limit=2&queue=q");
  }

  @Test
  void rejectsWrongAnswersQuotingTheServer() {
    assertThatThrownBy(() -> QueryWorkload.check(answer(400, "{\"error\":\"invalid filter\"}"), 2, 2, true, "queue", "q"))
        .isInstanceOf(BenchFailure.class).hasMessageContaining("400").hasMessageContaining("invalid filter");
    assertThatThrownBy(() -> QueryWorkload.check(answer(200, PAGE), 3, 3, true, "queue", "q"))
        .isInstanceOf(BenchFailure.class).hasMessageContaining("2 jobs listed, expected 3");
    assertThatThrownBy(() -> QueryWorkload.check(answer(200, PAGE), 2, 2, false, "queue", "q"))
        .isInstanceOf(BenchFailure.class).hasMessageContaining("next link");
    assertThatThrownBy(() -> QueryWorkload.check(answer(200, PAGE), 2, 2, true, "queue", "other"))
        .isInstanceOf(BenchFailure.class).hasMessageContaining("expected 'other'");
    assertThatThrownBy(() -> QueryWorkload.check(answer(200, "{\"jobs\":[]}"), 0, 2, null, "queue", "q"))
        .isInstanceOf(BenchFailure.class).hasMessageContaining("not a page");
  }

  @Test
  void busyShareCountsOnlyTheOverlapWithTheWindow() {
    List<CountScanner.Count> counts = List.of(new CountScanner.Count(0, 60, 1), new CountScanner.Count(70, 100, 1));
    // window [50, 150]: 10 (first) + 80 (second) of 100
    assertThat(QueryWorkload.busyPct(counts, 50, 150)).isEqualTo(90.0);
    assertThat(QueryWorkload.busyPct(counts, 50, 50)).isZero();
  }
}

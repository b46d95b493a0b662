package io.sluice.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.engine.SluiceException;
import io.vertx.core.MultiMap;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link QueryParams} and {@link PathSegments}: strict percent-decoding of request targets. */
class QueryParamsTest {
  private static final Set<String> NAMES = Set.of("queue", "type", "flag", "a b", "");

  @Test
  void splitsDecodesAndKeepsOrder() {
    MultiMap query = QueryParams.parse("queue=a+b%2Bc&&type=%F0%9F%98%80;flag&queue=second",
        NAMES);

    assertThat(query.getAll("queue")).containsExactly("a b+c", "second");
    assertThat(query.get("type")).isEqualTo("\uD83D\uDE00");
    assertThat(query.get("flag")).isEmpty();
    assertThat(QueryParams.parse(null, NAMES).isEmpty()).isTrue();
    assertThat(QueryParams.parse("a+b=1", NAMES).get("a b")).isEqualTo("1");
  }

  @Test
  void readsRawBytesAsUtf8() {
    // Netty hands the request target over one char per byte.
    MultiMap query = QueryParams.parse("queue=\u00F0\u009F\u0098\u0080", NAMES);

    assertThat(query.get("queue")).isEqualTo("\uD83D\uDE00");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
    "queue=%ZZ|malformed percent-encoding in `queue`",
    "queue=a%|malformed percent-encoding in `queue`",
    "queue=%4|malformed percent-encoding in `queue`",
    "type=1&queue=%C0%AF|malformed UTF-8 in `queue`",
    "queue=%ED%A0%80|malformed UTF-8 in `queue`",
    "queue=%F4%90%80%80|malformed UTF-8 in `queue`",
    "queue=%E2%82|malformed UTF-8 in `queue`",
    "queue=\u00C0\u00AF|malformed UTF-8 in `queue`",
    "queue=\u0100|malformed UTF-8 in `queue`",
    "%G1=x|malformed percent-encoding in parameter name `%G1`",
    "q%C0%AF|malformed UTF-8 in parameter name `q%C0%AF`",
    "Queue=x|unknown parameter `Queue`",
    "=x|unknown parameter ``"
  })
  void rejectsWithTheParameterNamed(String rawQuery, String detail) {
    assertThatThrownBy(() -> QueryParams.parse(rawQuery, Set.of("queue", "type")))
        .isInstanceOf(SluiceException.InvalidRequest.class)
        .hasMessage("invalid query parameters: " + detail);
  }

  @Test
  void reportsAMalformedValueBeforeAnUnknownName() {
    assertThatThrownBy(() -> QueryParams.parse("nope=1&queue=%ZZ", Set.of("queue")))
        .hasMessage("invalid query parameters: malformed percent-encoding in `queue`");
  }

  @Test
  void decodesPathSegmentsStrictly() {
    PathSegments.Decoded path = PathSegments.parse("/jobs/a%2Fb+c/%F0%9F%98%80/");

    assertThat(path.segments()).containsExactly("jobs", "a/b+c", "\uD83D\uDE00", "");
    assertThat(path.malformed()).isEqualTo(-1);
    assertThat(PathSegments.parse("jobs")).isNull();
  }

  @Test
  void marksTheFirstSegmentThatCannotBeDecoded() {
    PathSegments.Decoded path = PathSegments.parse("/jobs/%ED%A0%80/%ZZ");

    assertThat(path.segments()).containsExactly("jobs", null, null);
    assertThat(path.malformed()).isEqualTo(1);
    assertThat(path.problem()).isEqualTo("malformed UTF-8");
    assertThat(PathSegments.parse("/jobs/ok/%Z").problem())
        .isEqualTo("malformed percent-encoding");
  }
}

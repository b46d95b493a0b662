package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueryBodiesTest {

  private final ObjectMapper json = new ObjectMapper();

  @Test
  void storedJobsCycleTypesAndKindsAndRareJobsAreSpreadOut() throws Exception {
    QueryBodies bodies = new QueryBodies(1_000, 10, 100);
    assertThat(bodies.total()).isEqualTo(1_010);
    List<Buffer> list = bodies.lazyBulk(300);
    assertThat(list).hasSize(4);
    int storedSeq = 0;
    int rareSeq = 0;
    int position = 0;
    int lastRare = -1000;
    for (int i = 0; i < list.size(); i++) {
      JsonNode jobs = json.readTree(list.get(i).getBytes()).path("jobs");
      assertThat(jobs.size()).isEqualTo(JobBodies.batchJobs(1_010, 300, i));
      for (JsonNode job : jobs) {
        JsonNode payload = job.path("payload");
        assertThat(json.writeValueAsString(payload)).hasSize(100);
        if (job.path("queue").asText().equals("rare")) {
          assertThat(bodies.isRare(position)).isTrue();
          assertThat(job.path("type").asText()).isEqualTo("rare");
          assertThat(payload.path("seq").asInt()).isEqualTo(rareSeq++);
          assertThat(position - lastRare).isGreaterThanOrEqualTo(100);
          lastRare = position;
        } else {
          assertThat(job.path("queue").asText()).isEqualTo("stored");
          int seq = storedSeq++;
          assertThat(payload.path("seq").asInt()).isEqualTo(seq);
          assertThat(job.path("type").asText()).isEqualTo("t" + seq % 4);
          assertThat(payload.path("kind").asText()).isEqualTo("k" + seq % 10);
        }
        position++;
      }
    }
    assertThat(storedSeq).isEqualTo(1_000);
    assertThat(rareSeq).isEqualTo(10);
  }

  @Test
  void rarePositionsAreDistinctAndInRange() {
    int[] all = QueryBodies.rarePositions(7, 7);
    assertThat(all).containsExactly(0, 1, 2, 3, 4, 5, 6);
    int[] some = QueryBodies.rarePositions(1_000_100, 100);
    assertThat(some[0]).isEqualTo(5_000);
    assertThat(some[99]).isEqualTo(995_099);
    assertThat(QueryBodies.rarePositions(10, 0)).isEmpty();
  }

  @Test
  void expectedCountsMatchTheModuloRule() {
    assertThat(QueryBodies.kindCount(1_000_000, 3)).isEqualTo(100_000);
    assertThat(QueryBodies.typeCount(1_000_000, 2)).isEqualTo(250_000);
    assertThat(QueryBodies.kindCount(14, 3)).isEqualTo(2);
    assertThat(QueryBodies.kindCount(14, 4)).isEqualTo(1);
    assertThat(QueryBodies.typeCount(3, 2)).isEqualTo(1);
  }
}

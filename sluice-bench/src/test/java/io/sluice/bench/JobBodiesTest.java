package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobBodiesTest {

  private final ObjectMapper json = new ObjectMapper();
  private final JobBodies bodies = new JobBodies("bench", "cafe0001", 100);

  @Test
  void payloadHasTheRequestedSizeAndCarriesSeqAndNonce() throws Exception {
    JsonNode job = json.readTree(bodies.single(42).getBytes());
    assertThat(job.path("type").asText()).isEqualTo("bench");
    assertThat(job.path("queue").asText()).isEqualTo("bench");
    assertThat(json.writeValueAsString(job.path("payload"))).hasSize(100);
    assertThat(job.path("payload").path("seq").asInt()).isEqualTo(42);
    assertThat(job.path("payload").path("nonce").asText()).isEqualTo("cafe0001");
  }

  @Test
  void bulkBodiesCoverEverySequenceOnceWithAShortLastBatch() throws Exception {
    List<Buffer> list = bodies.bulk(2_500, 1_000);
    assertThat(list).hasSize(3);
    int expectedSeq = 0;
    for (int i = 0; i < list.size(); i++) {
      JsonNode jobs = json.readTree(list.get(i).getBytes()).path("jobs");
      assertThat(jobs.size()).isEqualTo(JobBodies.batchJobs(2_500, 1_000, i));
      for (JsonNode job : jobs) {
        assertThat(job.path("payload").path("seq").asInt()).isEqualTo(expectedSeq++);
      }
    }
    assertThat(expectedSeq).isEqualTo(2_500);
  }

  @Test
  void unboundJobsCarryNoBudgets() throws Exception {
    JsonNode job = json.readTree(bodies.single(1).getBytes());
    assertThat(job.has("budgets")).isFalse();
  }

  @Test
  void boundJobsCarryOneBindingOfCostOneChosenBySequence() throws Exception {
    JobBodies bound = new JobBodies("q", "cafe0001", 100, seq -> "b" + seq / 4);
    JsonNode jobs = json.readTree(bound.bulk(8, 8).get(0).getBytes()).path("jobs");
    assertThat(jobs.get(3).path("budgets").toString()).isEqualTo("[{\"key\":\"b0\",\"cost\":1}]");
    assertThat(jobs.get(4).path("budgets").toString()).isEqualTo("[{\"key\":\"b1\",\"cost\":1}]");
    assertThat(json.writeValueAsString(jobs.get(4).path("payload"))).hasSize(100);
  }

  @Test
  void lazyBulkBuildsTheSameBodiesAsBulk() {
    JobBodies bound = new JobBodies("parked", "cafe0001", 50, JobBodies.allTo("blocked"));
    List<Buffer> eager = bound.bulk(2_345, 1_000);
    List<Buffer> lazy = bound.lazyBulk(2_345, 1_000);
    assertThat(lazy).hasSize(3);
    for (int i = 0; i < eager.size(); i++) {
      assertThat(lazy.get(i).toString()).isEqualTo(eager.get(i).toString());
    }
  }
}

package io.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.client.model.Job;
import io.sluice.client.model.JobStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The hand-written job reader must read exactly what Jackson's generic record reader reads. */
class JobDeserializerTest {
  private static final WireCodec CODEC = new WireCodec();
  /** The generic reader: the same mapper settings without the job deserializer. */
  private static final ObjectMapper GENERIC = new ObjectMapper()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .registerModule(new EpochMillisModule());

  static List<String> jobs() {
    return List.of(
        "{\"id\":\"a1\",\"type\":\"t\",\"queue\":\"q\",\"priority\":5,\"status\":\"in_flight\","
            + "\"payload\":{\"n\":[1,2,{\"x\":null}]},\"ready_at\":1700000000123,\"attempts\":2,"
            + "\"retry_limit\":7,\"backoff\":{\"exponent\":2.5,\"base_ms\":100,\"jitter_ms\":10},"
            + "\"retention\":{\"completed_ms\":1000,\"dead_ms\":2000},"
            + "\"dequeued_at\":1700000000200,\"failed_at\":1700000000300,"
            + "\"completed_at\":1700000000400,\"purge_at\":1700000000500,"
            + "\"unique_key\":\"k\",\"unique_while\":\"active\","
            + "\"batch\":{\"key\":\"b\",\"fold\":\".\",\"when\":\"true\"},"
            + "\"budgets\":[{\"key\":\"api\",\"cost\":3}],\"duplicate\":true,\"folded\":true}",
        "{\"id\":\"a2\",\"type\":\"t\",\"queue\":\"q\",\"priority\":0,\"status\":\"ready\","
            + "\"payload\":\"text\",\"ready_at\":0,\"attempts\":0}",
        "{\"id\":\"a3\",\"payload\":null,\"retry_limit\":null,\"budgets\":null,\"status\":null}",
        "{\"unknown\":{\"deep\":[1,{\"a\":2}]},\"id\":\"a4\",\"later\":[],\"payload\":[1,2]}",
        "{}");
  }

  @ParameterizedTest
  @MethodSource("jobs")
  void readsWhatTheGenericReaderReads(String json) throws Exception {
    Job generic = GENERIC.readValue(json, Job.class);
    assertThat(CODEC.json().readValue(json, Job.class)).isEqualTo(generic);

    byte[] msgpack = CODEC.mapper(WireFormat.MSGPACK).writeValueAsBytes(GENERIC.readTree(json));
    assertThat(CODEC.mapper(WireFormat.MSGPACK).readValue(msgpack, Job.class)).isEqualTo(generic);
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {
      "{\"id\":{\"x\":1},\"type\":\"t\"}",
      "{\"id\":\"a\",\"priority\":[1,2]}",
      "{\"id\":\"a\",\"folded\":{\"id\":\"b\"}}"})
  void refusesAnObjectOrArrayWhereAScalarBelongs(String json) {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> GENERIC.readValue(json, Job.class))
        .isInstanceOf(java.io.IOException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> CODEC.json().readValue(json, Job.class)).isInstanceOf(java.io.IOException.class);
  }

  @Test
  void readsJobsInsideOtherValues() throws Exception {
    String page = "{\"jobs\":[{\"id\":\"x\",\"status\":\"dead\"},{\"id\":\"y\",\"priority\":3}]}";
    Map<String, List<Job>> read = CODEC.json().readValue(page,
        CODEC.json().getTypeFactory().constructMapType(Map.class,
            CODEC.json().constructType(String.class),
            CODEC.json().getTypeFactory().constructCollectionType(List.class, Job.class)));
    assertThat(read.get("jobs")).extracting(Job::id, Job::status, Job::priority)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("x", JobStatus.DEAD, 0),
            org.assertj.core.groups.Tuple.tuple("y", null, 3));
  }
}

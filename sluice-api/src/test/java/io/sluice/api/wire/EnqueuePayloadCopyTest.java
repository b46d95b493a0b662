package io.sluice.api.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.NewJob;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The payload stored for an enqueued job: compact JSON whatever the body's layout. */
class EnqueuePayloadCopyTest {
  private static final JobId ID = new JobId(1, 2);

  private static String payloadOf(String body) {
    NewJob job = new EnqueueParser(Format.JSON)
        .readOne(Bodies.checked(Format.JSON, body.getBytes(StandardCharsets.UTF_8)), () -> ID);
    return new String(job.payload(), StandardCharsets.UTF_8);
  }

  private static String job(String payload) {
    return "{\"type\":\"t\",\"payload\":" + payload + ",\"queue\":\"q\"}";
  }

  @Test
  void aCompactPayloadIsStoredAsItCame() {
    assertThat(payloadOf(job("{\"a\":[1,2,{\"b\":null}],\"c\":\"x y\"}")))
        .isEqualTo("{\"a\":[1,2,{\"b\":null}],\"c\":\"x y\"}");
    assertThat(payloadOf(job("\"just a string\""))).isEqualTo("\"just a string\"");
    assertThat(payloadOf(job("-12.50"))).isEqualTo("-12.50");
    assertThat(payloadOf(job("true"))).isEqualTo("true");
    assertThat(payloadOf(job("null"))).isEqualTo("null");
  }

  @Test
  void aPayloadAtTheEndOfTheJobIsCopiedWhole() {
    assertThat(payloadOf("{\"type\":\"t\",\"queue\":\"q\",\"payload\":{\"k\":[true]}}"))
        .isEqualTo("{\"k\":[true]}");
    assertThat(payloadOf("{\"type\":\"t\",\"queue\":\"q\",\"payload\":12345}"))
        .isEqualTo("12345");
    assertThat(payloadOf("{\"type\":\"t\",\"queue\":\"q\",\"payload\":\"s\"}"))
        .isEqualTo("\"s\"");
  }

  @Test
  void whitespaceBetweenTokensIsDropped() {
    assertThat(payloadOf(job("{ \"a\" : [ 1 ,\n 2 ] ,\t\"b\": \"x y\" }")))
        .isEqualTo("{\"a\":[1,2],\"b\":\"x y\"}");
  }

  @Test
  void numbersWithAnExponentAreReencodedExactly() {
    assertThat(payloadOf(job("{\"a\":1e400}"))).isEqualTo("{\"a\":1E+400}");
    assertThat(payloadOf(job("[2.5E-3]"))).isEqualTo("[0.0025]");
  }

  @Test
  void everyJobOfABulkKeepsItsOwnPayload() {
    String body = "{\"jobs\":[" + job("{\"n\":1}") + "," + job("[ 2 ]") + "," + job("\"3\"")
        + "]}";
    List<NewJob> jobs = new EnqueueParser(Format.JSON)
        .readBulk(Bodies.checked(Format.JSON, body.getBytes(StandardCharsets.UTF_8)), () -> ID);
    assertThat(jobs).extracting(j -> new String(j.payload(), StandardCharsets.UTF_8))
        .containsExactly("{\"n\":1}", "[2]", "\"3\"");
  }

  @Test
  void aBodyInUtf16IsReencoded() {
    byte[] body = job("{\"a\":[1,true]}").getBytes(StandardCharsets.UTF_16LE);
    NewJob job = new EnqueueParser(Format.JSON)
        .readOne(Bodies.checked(Format.JSON, body), () -> ID);
    assertThat(new String(job.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":[1,true]}");
  }

  @Test
  void aMessagePackPayloadBecomesCompactJson() throws Exception {
    byte[] body = Format.MSGPACK.mapper().writeValueAsBytes(
        Format.JSON.mapper().readTree(job("{\"a\": [1, \"two\"]}")));
    NewJob job = new EnqueueParser(Format.MSGPACK)
        .readOne(Bodies.checked(Format.MSGPACK, body), () -> ID);
    assertThat(new String(job.payload(), StandardCharsets.UTF_8))
        .isEqualTo("{\"a\":[1,\"two\"]}");
  }
}

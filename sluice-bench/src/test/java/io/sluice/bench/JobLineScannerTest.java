package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JobLineScannerTest {

  private final JobLineScanner scanner = new JobLineScanner("cafe0001");

  @Test
  void extractsIdSeqAndNonceFromAServerLine() {
    byte[] line = bytes("{\"id\":\"03fr82s4q2jktvg5p1acpeqfe\",\"type\":\"bench\",\"queue\":\"bench\",\"priority\":32768,"
        + "\"status\":\"in_flight\",\"payload\":{\"seq\":123,\"nonce\":\"cafe0001\",\"pad\":\"xx\"},"
        + "\"ready_at\":1773464270599,\"attempts\":0,\"dequeued_at\":1773464504362}");
    assertThat(scanner.scan(line, 0, line.length)).isTrue();
    assertThat(scanner.id(line)).isEqualTo("03fr82s4q2jktvg5p1acpeqfe");
    assertThat(scanner.seq()).isEqualTo(123);
    assertThat(scanner.nonceMatches()).isTrue();
  }

  @Test
  void readsDequeuedAtOnRequestAndMinusOneWhenAbsent() {
    byte[] line = bytes("{\"id\":\"a\",\"attempts\":0, \"dequeued_at\" : 1773464504362}");
    assertThat(JobLineScanner.dequeuedAtMs(line, 0, line.length)).isEqualTo(1773464504362L);

    byte[] never = bytes("{\"id\":\"a\",\"attempts\":0}");
    assertThat(JobLineScanner.dequeuedAtMs(never, 0, never.length)).isEqualTo(-1);

    byte[] nullValue = bytes("{\"id\":\"a\",\"dequeued_at\":null}");
    assertThat(JobLineScanner.dequeuedAtMs(nullValue, 0, nullValue.length)).isEqualTo(-1);
  }

  @Test
  void readsAttemptsOnRequestAndMinusOneWhenAbsent() {
    byte[] line = bytes("{\"id\":\"a\",\"payload\":{\"seq\":4},\"attempts\" : 12,\"dequeued_at\":1}");
    assertThat(JobLineScanner.attempts(line, 0, line.length)).isEqualTo(12);

    byte[] none = bytes("{\"id\":\"a\"}");
    assertThat(JobLineScanner.attempts(none, 0, none.length)).isEqualTo(-1);
  }

  @Test
  void toleratesWhitespaceAndPayloadBeforeId() {
    byte[] line = bytes("{ \"payload\" : { \"nonce\" : \"cafe0001\", \"seq\" : 7 }, \"id\" : \"abc\" }");
    assertThat(scanner.scan(line, 0, line.length)).isTrue();
    assertThat(scanner.id(line)).isEqualTo("abc");
    assertThat(scanner.seq()).isEqualTo(7);
    assertThat(scanner.nonceMatches()).isTrue();
  }

  @Test
  void flagsJobsFromAnotherRunOrWithoutPayloadFields() {
    byte[] other = bytes("{\"id\":\"x\",\"payload\":{\"seq\":1,\"nonce\":\"cafe00012\"}}");
    assertThat(scanner.scan(other, 0, other.length)).isTrue();
    assertThat(scanner.nonceMatches()).isFalse();

    byte[] bare = bytes("{\"id\":\"y\",\"payload\":{}}");
    assertThat(scanner.scan(bare, 0, bare.length)).isTrue();
    assertThat(scanner.seq()).isEqualTo(-1);
    assertThat(scanner.nonceMatches()).isFalse();
  }

  @Test
  void aValueSpelledIdIsNotTheIdKey() {
    byte[] line = bytes("{\"type\":\"id\",\"status\":\"ok\"}");
    assertThat(scanner.scan(line, 0, line.length)).isFalse();
  }

  @Test
  void countsIdsInABulkAnswer() {
    byte[] body = bytes("{\"jobs\":[{\"id\":\"a\",\"payload\":{}},{\"id\" : \"b\"},{\"id\":\"c\"}]}");
    assertThat(JobLineScanner.countIdKeys(body, 0, body.length)).isEqualTo(3);
  }

  @Test
  void scansOnlyTheGivenRange() {
    byte[] buf = bytes("{\"id\":\"a\",\"payload\":{\"seq\":1}}\n{\"id\":\"b\",\"payload\":{\"seq\":2}}");
    int nl = new String(buf, StandardCharsets.US_ASCII).indexOf('\n');
    assertThat(scanner.scan(buf, nl + 1, buf.length)).isTrue();
    assertThat(scanner.id(buf)).isEqualTo("b");
    assertThat(scanner.seq()).isEqualTo(2);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}

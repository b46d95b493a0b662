package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.Binding;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobIdGenerator;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.store.IndexEntry;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Job records across the format changes that added each binding's settled cost (X5) and the
 * payload a record may hold.
 */
class JobRecordTest {
  private static final long T0 = 1_700_000_000_000L;

  @Test
  void aRecordWrittenBeforeSettlementsExistedReadsAsUnsettled() {
    JobId id = new JobIdGenerator().next(T0);
    byte[] secondFormat = new RecordWriter()
        .writeByte(2)
        .writeString("llm")
        .writeString("q")
        .writeInt(7)
        .writeByte(JobStatus.READY.ordinal())
        .writeLong(T0)
        .writeInt(1)
        .writeLong(T0 - 10)
        .writeLong(T0 - 5)
        .writeLong(-1)
        .writeLong(-1)
        .writeByte(0)
        .writeInt(2)
        .writeString("tokens").writeLong(500)
        .writeString("pool").writeLong(1)
        .toByteArray();

    assertThat(RecordCodec.decodeJob(id, secondFormat).budgets())
        .containsExactly(new Binding("tokens", 500), new Binding("pool", 1));
  }

  /** A dead job bound to two budgets, one of them settled at another cost than it was bound. */
  private static JobSnapshot deadWithASettledBinding(JobId id) {
    return new JobSnapshot(id, "llm", "q", 7, JobStatus.DEAD, T0, 3,
        null, null, null, T0, T0, -1, T0 + 1_000, null,
        List.of(new Binding("tokens", 500, 1_000_000L), new Binding("pool", 1)));
  }

  @Test
  void aRecordHoldingAPayloadReadsBackWithItOnlyWhenAsked() {
    JobId id = new JobIdGenerator().next(T0);
    JobSnapshot job = new JobSnapshot(id, "llm", "q", 7, JobStatus.READY, T0, 0, 3, null, null,
        -1, -1, -1, -1, null, List.of(new Binding("pool", 1)));
    byte[] payload = "{\"prompt\":\"☃\"}".getBytes(StandardCharsets.UTF_8);
    byte[] record = RecordCodec.encodeJob(job, payload, new RecordWriter()).toByteArray();

    assertThat(RecordCodec.decodeJob(id, record)).isEqualTo(job);
    JobSnapshot withPayload = RecordCodec.decodeJob(id, record, true);
    assertThat(withPayload.payload()).isEqualTo(payload);
    assertThat(withPayload.withPayload(null)).isEqualTo(job);
    assertThat(RecordCodec.payloadOf(id, record)).isEqualTo(payload);
    assertThat(RecordCodec.decodeIndexEntry(record))
        .isEqualTo(IndexEntry.of(job));
  }

  @Test
  void aRecordOfTheThirdFormatReadsAsOneWithoutPayload() {
    JobId id = new JobIdGenerator().next(T0);
    JobSnapshot job = deadWithASettledBinding(id);
    byte[] thirdFormat = RecordCodec.encodeJob(job);
    assertThat(thirdFormat[0]).as("the current format").isEqualTo((byte) 4);
    // Format 4 without a payload is format 3 byte for byte, but for the version byte.
    thirdFormat[0] = 3;

    assertThat(RecordCodec.decodeJob(id, thirdFormat, true)).isEqualTo(job);
    assertThat(RecordCodec.payloadOf(id, thirdFormat)).isNull();
  }

  @Test
  void settledAndUnsettledBindingsRoundTrip() {
    JobId id = new JobIdGenerator().next(T0);
    JobSnapshot job = deadWithASettledBinding(id);

    assertThat(RecordCodec.decodeJob(id, RecordCodec.encodeJob(job))).isEqualTo(job);
  }
}

package io.sluice.store.rocks;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Job and error records across the format changes that came with throttled failures (X6): a job
 * record now counts its error records, an error record says whether it was throttled, and its
 * key holds its sequence rather than its attempt. Records written before read as they meant.
 */
class ErrorRecordFormatTest {
  private static final JobId ID = new JobId(3, 4);

  @Test
  void aJobRecordWrittenBeforeThrottlingHasOneErrorRecordPerAttempt() {
    byte[] secondFormat = new RecordWriter()
        .writeByte(2)
        .writeString("call")
        .writeString("q")
        .writeInt(5)
        .writeByte(JobStatus.SCHEDULED.ordinal())
        .writeLong(9_000)
        .writeInt(4)
        .writeLong(7_000)
        .writeLong(8_000)
        .writeLong(Job.NONE)
        .writeLong(Job.NONE)
        .writeByte(0)
        .writeInt(0)
        .toByteArray();

    JobSnapshot job = RecordCodec.decodeJob(ID, secondFormat);

    assertThat(job.attempts()).isEqualTo(4);
    assertThat(job.errorRecords()).isEqualTo(4);
  }

  @Test
  void aJobRecordKeepsAnErrorRecordCountThatDiffersFromItsAttempts() {
    JobSnapshot throttled = new JobSnapshot(ID, "call", "q", 5, JobStatus.READY, 9_000, 1, null,
        null, null, 7_000, 8_000, Job.NONE, Job.NONE, null, List.of(), null, null, 3);

    assertThat(RecordCodec.decodeJob(ID, RecordCodec.encodeJob(throttled))).isEqualTo(throttled);
  }

  @Test
  void anErrorRecordWrittenBeforeThrottlingReadsAsCountedUnderTheSequenceOfItsKey() {
    byte[] firstFormat = new RecordWriter()
        .writeByte(1)
        .writeInt(2)
        .writeString("smtp timeout")
        .writeOptionalString("TimeoutError")
        .writeOptionalString(null)
        .writeLong(1_000)
        .writeLong(1_500)
        .toByteArray();

    assertThat(RecordCodec.decodeError(2, firstFormat)).isEqualTo(
        new ErrorRecord(2, "smtp timeout", "TimeoutError", null, 1_000, 1_500));
  }

  @Test
  void throttledAndCountedErrorRecordsRoundTrip() {
    ErrorRecord throttled = new ErrorRecord(1, 1, "429", "HttpError", "trace", 1_000, 1_200, true);
    ErrorRecord counted = new ErrorRecord(2, 1, "500", null, null, 2_000, 2_100, false);

    assertThat(RecordCodec.decodeError(1, RecordCodec.encodeError(throttled)))
        .isEqualTo(throttled);
    assertThat(RecordCodec.decodeError(2, RecordCodec.encodeError(counted))).isEqualTo(counted);
  }

  @Test
  void theKeyOfAnErrorRecordHoldsItsSequence() {
    byte[] key = Keys.error(ID, 7);

    assertThat(Keys.isErrorOf(key, ID)).isTrue();
    assertThat(Keys.errorSequence(key)).isEqualTo(7);
  }
}

package io.sluice.store.rocks;

import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;

/**
 * Binary encoding of job records (without payload) and error records. Each record starts with a
 * format version byte so that later versions can read older data.
 */
final class RecordCodec {
  private static final int JOB_FORMAT = 1;
  private static final int ERROR_FORMAT = 1;
  private static final int HAS_RETRY_LIMIT = 1;
  private static final int HAS_BACKOFF = 2;
  private static final int HAS_COMPLETED_RETENTION = 4;
  private static final int HAS_DEAD_RETENTION = 8;

  private RecordCodec() {}

  static byte[] encodeJob(JobSnapshot job) {
    RetentionPolicy retention = job.retention();
    int flags = (job.retryLimit() != null ? HAS_RETRY_LIMIT : 0)
        | (job.backoff() != null ? HAS_BACKOFF : 0)
        | (retention != null && retention.completedMs() != null ? HAS_COMPLETED_RETENTION : 0)
        | (retention != null && retention.deadMs() != null ? HAS_DEAD_RETENTION : 0);
    RecordWriter out = new RecordWriter()
        .writeByte(JOB_FORMAT)
        .writeString(job.type())
        .writeString(job.queue())
        .writeInt(job.priority())
        .writeByte(job.status().ordinal())
        .writeLong(job.readyAtMs())
        .writeInt(job.attempts())
        .writeLong(job.dequeuedAtMs())
        .writeLong(job.failedAtMs())
        .writeLong(job.completedAtMs())
        .writeLong(job.purgeAtMs())
        .writeByte(flags);
    if (job.retryLimit() != null) {
      out.writeInt(job.retryLimit());
    }
    if (job.backoff() != null) {
      out.writeLong(job.backoff().baseMs())
          .writeFloat(job.backoff().exponent())
          .writeLong(job.backoff().jitterMs());
    }
    if ((flags & HAS_COMPLETED_RETENTION) != 0) {
      out.writeLong(retention.completedMs());
    }
    if ((flags & HAS_DEAD_RETENTION) != 0) {
      out.writeLong(retention.deadMs());
    }
    return out.toByteArray();
  }

  static JobSnapshot decodeJob(JobId id, byte[] bytes) {
    RecordReader in = new RecordReader(bytes);
    int format = in.readByte();
    if (format != JOB_FORMAT) {
      throw new IllegalStateException("unknown job record format " + format + " for " + id);
    }
    String type = in.readString();
    String queue = in.readString();
    int priority = in.readInt();
    JobStatus status = JobStatus.values()[in.readByte()];
    long readyAtMs = in.readLong();
    int attempts = in.readInt();
    long dequeuedAtMs = in.readLong();
    long failedAtMs = in.readLong();
    long completedAtMs = in.readLong();
    long purgeAtMs = in.readLong();
    int flags = in.readByte();
    Integer retryLimit = (flags & HAS_RETRY_LIMIT) != 0 ? in.readInt() : null;
    BackoffPolicy backoff = (flags & HAS_BACKOFF) != 0
        ? new BackoffPolicy(in.readLong(), in.readFloat(), in.readLong())
        : null;
    Long completedMs = (flags & HAS_COMPLETED_RETENTION) != 0 ? in.readLong() : null;
    Long deadMs = (flags & HAS_DEAD_RETENTION) != 0 ? in.readLong() : null;
    RetentionPolicy retention =
        completedMs == null && deadMs == null ? null : new RetentionPolicy(completedMs, deadMs);
    return new JobSnapshot(id, type, queue, priority, status, readyAtMs, attempts, retryLimit,
        backoff, retention, dequeuedAtMs, failedAtMs, completedAtMs, purgeAtMs, null);
  }

  static byte[] encodeError(ErrorRecord error) {
    return new RecordWriter()
        .writeByte(ERROR_FORMAT)
        .writeInt(error.attempt())
        .writeString(error.message())
        .writeOptionalString(error.errorType())
        .writeOptionalString(error.backtrace())
        .writeLong(error.dequeuedAtMs())
        .writeLong(error.failedAtMs())
        .toByteArray();
  }

  static ErrorRecord decodeError(byte[] bytes) {
    RecordReader in = new RecordReader(bytes);
    int format = in.readByte();
    if (format != ERROR_FORMAT) {
      throw new IllegalStateException("unknown error record format " + format);
    }
    return new ErrorRecord(in.readInt(), in.readString(), in.readOptionalString(),
        in.readOptionalString(), in.readLong(), in.readLong());
  }
}

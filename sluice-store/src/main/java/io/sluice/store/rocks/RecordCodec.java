package io.sluice.store.rocks;

import io.sluice.engine.job.Binding;
import io.sluice.engine.budget.BucketState;
import io.sluice.engine.budget.BudgetPolicy;
import io.sluice.engine.budget.BudgetView;
import io.sluice.engine.budget.StrategyType;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.store.IndexEntry;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import java.util.ArrayList;
import java.util.List;

/**
 * Binary encoding of job records (without payload), budget policies and error records. Each
 * record starts with a format version byte so that later versions can read older data.
 */
final class RecordCodec {
  /**
   * Version 4 may end with the job's payload ({@link #HAS_PAYLOAD}). Version 3 added each
   * binding's flags, with its partition (X3) and settled cost (X5), and the number of error
   * records (X6: a throttled failure adds one without counting an attempt); version 3 records
   * (never a payload), version 2 records (bindings, nothing settled, as many error records as
   * attempts, which always held before throttling) and version 1 records (no bindings) are still
   * read.
   */
  private static final int JOB_FORMAT = 4;
  private static final int JOB_FORMAT_WITHOUT_PAYLOAD = 3;
  private static final int JOB_FORMAT_WITHOUT_ERROR_COUNT = 2;
  private static final int JOB_FORMAT_WITHOUT_BINDINGS = 1;
  /** A binding's flags (format 3): a settled cost follows. */
  private static final int HAS_SETTLED_COST = 1;
  /** A binding's flags (format 3): a partition follows. */
  private static final int HAS_PARTITION = 2;
  /**
   * Version 3 added the budget's flags, {@code durable} (X4) and {@code partitioned} (X3);
   * version 2 the end of the budget's pause (X6); records of versions 1 and 2 are still read
   * (plain, not durable; version 1 not paused).
   */
  private static final int BUDGET_FORMAT = 3;
  private static final int BUDGET_FORMAT_PAUSABLE = 2;
  private static final int BUDGET_DURABLE = 1;
  private static final int BUDGET_PARTITIONED = 2;
  private static final int BUDGET_FORMAT_UNPAUSED = 1;
  private static final int BUCKET_STATE_FORMAT = 1;
  /** Version 2 added whether the failure was throttled (X6); version 1 records were not. */
  private static final int ERROR_FORMAT = 2;
  private static final int ERROR_FORMAT_UNTHROTTLED = 1;
  private static final int HAS_RETRY_LIMIT = 1;
  private static final int HAS_BACKOFF = 2;
  private static final int HAS_COMPLETED_RETENTION = 4;
  private static final int HAS_DEAD_RETENTION = 8;
  /** Unique key and batch config follow the bindings; older records never set these bits. */
  private static final int HAS_UNIQUE = 16;
  private static final int HAS_BATCH = 32;
  /** The payload follows the error record count, length-prefixed (format 4). */
  private static final int HAS_PAYLOAD = 64;

  private RecordCodec() {}

  static byte[] encodeJob(JobSnapshot job) {
    return encodeJob(job, null, new RecordWriter()).toByteArray();
  }

  /**
   * Writes the job's record to {@code out} (emptied first) and returns it; the record holds
   * {@code payload} unless it is null. The snapshot's own payload is not written.
   */
  static RecordWriter encodeJob(JobSnapshot job, byte[] payload, RecordWriter out) {
    RetentionPolicy retention = job.retention();
    int flags = (job.retryLimit() != null ? HAS_RETRY_LIMIT : 0)
        | (job.backoff() != null ? HAS_BACKOFF : 0)
        | (retention != null && retention.completedMs() != null ? HAS_COMPLETED_RETENTION : 0)
        | (retention != null && retention.deadMs() != null ? HAS_DEAD_RETENTION : 0)
        | (job.unique() != null ? HAS_UNIQUE : 0)
        | (job.batch() != null ? HAS_BATCH : 0)
        | (payload != null ? HAS_PAYLOAD : 0);
    out.reset()
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
    List<Binding> bindings = job.budgets();
    out.writeInt(bindings.size());
    // Indexed: on C1 a for-each allocates an iterator for every record, most with no bindings.
    for (int i = 0; i < bindings.size(); i++) {
      Binding binding = bindings.get(i);
      out.writeString(binding.key()).writeLong(binding.cost())
          .writeByte((binding.settledCost() != null ? HAS_SETTLED_COST : 0)
              | (binding.partition() != null ? HAS_PARTITION : 0));
      if (binding.settledCost() != null) {
        out.writeLong(binding.settledCost());
      }
      if (binding.partition() != null) {
        out.writeString(binding.partition());
      }
    }
    if (job.unique() != null) {
      out.writeString(job.unique().key()).writeByte(job.unique().scope().ordinal());
    }
    if (job.batch() != null) {
      out.writeString(job.batch().key())
          .writeString(job.batch().when())
          .writeString(job.batch().fold());
    }
    out.writeInt(job.errorRecords());
    return payload == null ? out : out.writeBytes(payload);
  }

  /** What a job record is indexed under, read from the head of the record alone. */
  static IndexEntry decodeIndexEntry(byte[] bytes) {
    RecordReader in = new RecordReader(bytes);
    in.readByte(); // format: every format starts with the same four fields
    String type = in.readString();
    String queue = in.readString();
    in.readInt(); // priority
    return IndexEntry.of(queue, type, JobStatus.ofOrdinal(in.readByte()));
  }

  /** The record without its payload. */
  static JobSnapshot decodeJob(JobId id, byte[] bytes) {
    return decodeJob(id, bytes, false);
  }

  /** The payload the record holds, or null when it holds none. */
  static byte[] payloadOf(JobId id, byte[] bytes) {
    return decodeJob(id, bytes, true).payload();
  }

  /** The record, with the payload it holds if {@code withPayload}. */
  static JobSnapshot decodeJob(JobId id, byte[] bytes, boolean withPayload) {
    RecordReader in = new RecordReader(bytes);
    int format = in.readByte();
    if (format != JOB_FORMAT && format != JOB_FORMAT_WITHOUT_PAYLOAD
        && format != JOB_FORMAT_WITHOUT_ERROR_COUNT && format != JOB_FORMAT_WITHOUT_BINDINGS) {
      throw new IllegalStateException("unknown job record format " + format + " for " + id);
    }
    String type = in.readString();
    String queue = in.readString();
    int priority = in.readInt();
    JobStatus status = JobStatus.ofOrdinal(in.readByte());
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
    List<Binding> budgets = new ArrayList<>();
    if (format != JOB_FORMAT_WITHOUT_BINDINGS) {
      for (int i = in.readInt(); i > 0; i--) {
        String key = in.readString();
        long cost = in.readLong();
        int bindingFlags = format >= JOB_FORMAT_WITHOUT_PAYLOAD ? in.readByte() : 0;
        Long settledCost = (bindingFlags & HAS_SETTLED_COST) != 0 ? in.readLong() : null;
        String partition = (bindingFlags & HAS_PARTITION) != 0 ? in.readString() : null;
        budgets.add(new Binding(key, partition, cost, settledCost));
      }
    }
    UniqueKey unique = (flags & HAS_UNIQUE) != 0
        ? new UniqueKey(in.readString(), UniqueKey.Scope.values()[in.readByte()])
        : null;
    BatchConfig batch = (flags & HAS_BATCH) != 0
        ? new BatchConfig(in.readString(), in.readString(), in.readString())
        : null;
    int errorRecords = format >= JOB_FORMAT_WITHOUT_PAYLOAD ? in.readInt() : attempts;
    byte[] payload = withPayload && (flags & HAS_PAYLOAD) != 0 ? in.readBytes() : null;
    return new JobSnapshot(id, type, queue, priority, status, readyAtMs, attempts, retryLimit,
        backoff, retention, dequeuedAtMs, failedAtMs, completedAtMs, purgeAtMs, payload,
        List.copyOf(budgets), unique, batch, errorRecords);
  }

  static byte[] encodeBudget(BudgetView budget) {
    BudgetPolicy policy = budget.policy();
    return new RecordWriter()
        .writeByte(BUDGET_FORMAT)
        .writeLong(policy.allocation())
        .writeByte(policy.type().ordinal())
        .writeLong(policy.durationMs())
        .writeByte(policy.burst() == null ? 0 : 1)
        .writeLong(policy.burst() == null ? 0 : policy.burst())
        .writeLong(budget.createdAtMs())
        .writeLong(budget.updatedAtMs())
        .writeByte(budget.pausedUntilMs() == null ? 0 : 1)
        .writeLong(budget.pausedUntilMs() == null ? 0 : budget.pausedUntilMs())
        .writeByte((policy.durable() ? BUDGET_DURABLE : 0)
            | (budget.partitioned() ? BUDGET_PARTITIONED : 0))
        .toByteArray();
  }

  static BudgetView decodeBudget(String key, byte[] bytes) {
    RecordReader in = new RecordReader(bytes);
    int format = in.readByte();
    if (format != BUDGET_FORMAT && format != BUDGET_FORMAT_PAUSABLE
        && format != BUDGET_FORMAT_UNPAUSED) {
      throw new IllegalStateException("unknown budget record format " + format + " for " + key);
    }
    long allocation = in.readLong();
    StrategyType type = StrategyType.values()[in.readByte()];
    long durationMs = in.readLong();
    boolean hasBurst = in.readByte() == 1;
    long burst = in.readLong();
    long createdAtMs = in.readLong();
    long updatedAtMs = in.readLong();
    Long pausedUntilMs = null;
    if (format != BUDGET_FORMAT_UNPAUSED) {
      boolean paused = in.readByte() == 1;
      long until = in.readLong();
      pausedUntilMs = paused ? until : null;
    }
    int budgetFlags = format == BUDGET_FORMAT ? in.readByte() : 0;
    BudgetPolicy policy = new BudgetPolicy(allocation, type, durationMs,
        hasBurst ? burst : null, (budgetFlags & BUDGET_DURABLE) != 0);
    return new BudgetView(key, policy, (budgetFlags & BUDGET_PARTITIONED) != 0, createdAtMs,
        updatedAtMs, pausedUntilMs);
  }

  static byte[] encodeBucketState(BucketState state) {
    return new RecordWriter()
        .writeByte(BUCKET_STATE_FORMAT)
        .writeLong(state.tokens())
        .writeLong(state.accrued())
        .writeLong(state.debt())
        .writeLong(state.lastRefillMs())
        .toByteArray();
  }

  static BucketState decodeBucketState(String key, byte[] bytes) {
    RecordReader in = new RecordReader(bytes);
    int format = in.readByte();
    if (format != BUCKET_STATE_FORMAT) {
      throw new IllegalStateException("unknown bucket state format " + format + " for " + key);
    }
    return new BucketState(in.readLong(), in.readLong(), in.readLong(), in.readLong());
  }

  /** The body of an error record; its sequence is in its key. */
  static byte[] encodeError(ErrorRecord error) {
    return new RecordWriter()
        .writeByte(ERROR_FORMAT)
        .writeInt(error.attempt())
        .writeString(error.message())
        .writeOptionalString(error.errorType())
        .writeOptionalString(error.backtrace())
        .writeLong(error.dequeuedAtMs())
        .writeLong(error.failedAtMs())
        .writeByte(error.throttled() ? 1 : 0)
        .toByteArray();
  }

  /** The error record stored under {@code sequence}. */
  static ErrorRecord decodeError(int sequence, byte[] bytes) {
    RecordReader in = new RecordReader(bytes);
    int format = in.readByte();
    if (format != ERROR_FORMAT && format != ERROR_FORMAT_UNTHROTTLED) {
      throw new IllegalStateException("unknown error record format " + format);
    }
    int attempt = in.readInt();
    String message = in.readString();
    String errorType = in.readOptionalString();
    String backtrace = in.readOptionalString();
    long dequeuedAtMs = in.readLong();
    long failedAtMs = in.readLong();
    boolean throttled = format == ERROR_FORMAT && in.readByte() == 1;
    return new ErrorRecord(sequence, attempt, message, errorType, backtrace, dequeuedAtMs,
        failedAtMs, throttled);
  }
}

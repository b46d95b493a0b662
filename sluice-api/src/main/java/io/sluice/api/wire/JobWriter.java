package io.sluice.api.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.json.JsonGeneratorImpl;
import com.fasterxml.jackson.core.json.UTF8JsonGenerator;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import java.io.IOException;
import java.math.BigInteger;
import org.msgpack.jackson.dataformat.MessagePackGenerator;

/**
 * Writes jobs and error records in their wire shapes (API.md §6) to any Jackson generator, so one
 * code path serves JSON and MessagePack. Absent optional fields are omitted, never null.
 */
public final class JobWriter {
  private static final JsonFactory PAYLOAD_PARSERS = Format.unbounded(new JsonFactory());
  /*
   * Every job written carries these names; a JSON generator copies a pre-encoded name instead
   * of encoding and quoting it again for each job.
   */
  private static final SerializableString ID = new SerializedString("id");
  private static final SerializableString TYPE = new SerializedString("type");
  private static final SerializableString QUEUE = new SerializedString("queue");
  private static final SerializableString PRIORITY = new SerializedString("priority");
  private static final SerializableString STATUS = new SerializedString("status");
  private static final SerializableString PAYLOAD = new SerializedString("payload");
  private static final SerializableString READY_AT = new SerializedString("ready_at");
  private static final SerializableString ATTEMPTS = new SerializedString("attempts");
  private static final SerializableString DEQUEUED_AT = new SerializedString("dequeued_at");
  private static final SerializableString FAILED_AT = new SerializedString("failed_at");
  private static final SerializableString COMPLETED_AT = new SerializedString("completed_at");
  private static final SerializableString PURGE_AT = new SerializedString("purge_at");
  private static final SerializableString DUPLICATE = new SerializedString("duplicate");
  private static final SerializableString FOLDED = new SerializedString("folded");
  private static final SerializableString[] STATUS_NAMES = statusNames();

  private JobWriter() {}

  /** The payload is written only when {@code payload} is non-null (the with-payload shape). */
  public static void writeJob(JsonGenerator gen, JobSnapshot job, byte[] payload)
      throws IOException {
    gen.writeStartObject();
    writeJobFields(gen, job, payload);
    gen.writeEndObject();
  }

  /**
   * A job id as a string value, encoded from its ASCII bytes with no string in between where the
   * generator takes bytes; a generator writing chars (the events feed's) cannot, and gets text.
   */
  public static void writeId(JsonGenerator gen, JobId id) throws IOException {
    if (!(gen instanceof UTF8JsonGenerator || gen instanceof MessagePackGenerator)) {
      gen.writeString(id.toString());
      return;
    }
    // A fresh array each time: the MessagePack generator keeps an ASCII value's array until
    // the body ends.
    byte[] text = new byte[JobId.TEXT_LENGTH];
    id.renderInto(text, 0);
    gen.writeUTF8String(text, 0, JobId.TEXT_LENGTH);
  }

  /** An enqueue response element: the job without payload plus {@code duplicate}/{@code folded}. */
  public static void writeEnqueued(JsonGenerator gen, JobSnapshot job, boolean duplicate,
      boolean folded) throws IOException {
    gen.writeStartObject();
    writeJobFields(gen, job, null);
    gen.writeFieldName(DUPLICATE);
    gen.writeBoolean(duplicate);
    gen.writeFieldName(FOLDED);
    gen.writeBoolean(folded);
    gen.writeEndObject();
  }

  private static void writeJobFields(JsonGenerator gen, JobSnapshot job, byte[] payload)
      throws IOException {
    gen.writeFieldName(ID);
    writeId(gen, job.id());
    gen.writeFieldName(TYPE);
    gen.writeString(job.type());
    gen.writeFieldName(QUEUE);
    gen.writeString(job.queue());
    gen.writeFieldName(PRIORITY);
    gen.writeNumber(job.priority());
    gen.writeFieldName(STATUS);
    gen.writeString(STATUS_NAMES[job.status().ordinal()]);
    if (payload != null) {
      gen.writeFieldName(PAYLOAD);
      writePayload(gen, payload);
    }
    gen.writeFieldName(READY_AT);
    gen.writeNumber(job.readyAtMs());
    gen.writeFieldName(ATTEMPTS);
    gen.writeNumber(job.attempts());
    writeOverrides(gen, job.retryLimit(), job.backoff(), job.retention());
    writeTime(gen, DEQUEUED_AT, job.dequeuedAtMs());
    writeTime(gen, FAILED_AT, job.failedAtMs());
    writeTime(gen, COMPLETED_AT, job.completedAtMs());
    writeTime(gen, PURGE_AT, job.purgeAtMs());
    writeUniqueAndBatch(gen, job.unique(), job.batch());
    BudgetWire.writeBindings(gen, job.budgets());
  }

  /** The per-job overrides of the server defaults, each only when set (API.md §6.1). */
  public static void writeOverrides(JsonGenerator gen, Integer retryLimit, BackoffPolicy backoff,
      RetentionPolicy retention) throws IOException {
    if (retryLimit != null) {
      gen.writeNumberField("retry_limit", retryLimit);
    }
    if (backoff != null) {
      gen.writeObjectFieldStart("backoff");
      gen.writeNumberField("base_ms", backoff.baseMs());
      gen.writeNumberField("exponent", backoff.exponent());
      gen.writeNumberField("jitter_ms", backoff.jitterMs());
      gen.writeEndObject();
    }
    if (retention != null && !retention.isEmpty()) {
      gen.writeObjectFieldStart("retention");
      if (retention.completedMs() != null) {
        gen.writeNumberField("completed_ms", retention.completedMs());
      }
      if (retention.deadMs() != null) {
        gen.writeNumberField("dead_ms", retention.deadMs());
      }
      gen.writeEndObject();
    }
  }

  /** {@code unique_key}/{@code unique_while} and {@code batch}, when the job has them. */
  public static void writeUniqueAndBatch(JsonGenerator gen, UniqueKey unique, BatchConfig batch)
      throws IOException {
    if (unique != null) {
      gen.writeStringField("unique_key", unique.key());
      gen.writeStringField("unique_while", unique.scope().wireName());
    }
    if (batch != null) {
      gen.writeObjectFieldStart("batch");
      gen.writeStringField("key", batch.key());
      gen.writeStringField("when", batch.when());
      gen.writeStringField("fold", batch.fold());
      gen.writeEndObject();
    }
  }

  private static void writeTime(JsonGenerator gen, SerializableString field, long valueMs)
      throws IOException {
    if (valueMs != Job.NONE) {
      gen.writeFieldName(field);
      gen.writeNumber(valueMs);
    }
  }

  /** A status's wire name, its UTF-8 bytes encoded once. */
  static SerializableString statusName(JobStatus status) {
    return STATUS_NAMES[status.ordinal()];
  }

  private static SerializableString[] statusNames() {
    JobStatus[] statuses = JobStatus.values();
    SerializableString[] names = new SerializableString[statuses.length];
    for (JobStatus status : statuses) {
      names[status.ordinal()] = new SerializedString(status.wireName());
    }
    return names;
  }

  /** Payloads are stored as canonical JSON: spliced raw into JSON, transcoded otherwise. */
  public static void writePayload(JsonGenerator gen, byte[] payloadJson) throws IOException {
    if (gen instanceof JsonGeneratorImpl) {
      gen.writeRawValue(RawJson.of(payloadJson));
      return;
    }
    try (JsonParser parser = PAYLOAD_PARSERS.createParser(payloadJson)) {
      for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
        switch (token) {
          case VALUE_NUMBER_INT -> writeInteger(gen, parser);
          case VALUE_NUMBER_FLOAT -> gen.writeNumber(parser.getDoubleValue());
          default -> gen.copyCurrentEvent(parser);
        }
      }
    }
  }

  /**
   * MessagePack integers span -2^63 to 2^64-1; a JSON integer beyond that is sent as a float64,
   * as a JSON decoder without arbitrary precision would read it.
   */
  private static void writeInteger(JsonGenerator gen, JsonParser parser) throws IOException {
    if (parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
      gen.writeNumber(parser.getLongValue());
      return;
    }
    BigInteger value = parser.getBigIntegerValue();
    boolean fits = value.signum() >= 0 ? value.bitLength() <= 64 : value.bitLength() <= 63;
    if (fits) {
      gen.writeNumber(value);
    } else {
      gen.writeNumber(value.doubleValue());
    }
  }

  public static void writeError(JsonGenerator gen, ErrorRecord error) throws IOException {
    gen.writeStartObject();
    gen.writeNumberField("attempt", error.attempt());
    gen.writeStringField("message", error.message());
    if (error.errorType() != null) {
      gen.writeStringField("error_type", error.errorType());
    }
    if (error.backtrace() != null) {
      gen.writeStringField("backtrace", error.backtrace());
    }
    gen.writeNumberField("dequeued_at", error.dequeuedAtMs());
    gen.writeNumberField("failed_at", error.failedAtMs());
    // X6: present only on throttled records, so a reference client sees §6.3 exactly.
    if (error.throttled()) {
      gen.writeBooleanField("throttled", true);
    }
    gen.writeEndObject();
  }
}

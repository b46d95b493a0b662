package io.sluice.api.wire;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonGeneratorImpl;
import io.sluice.engine.job.ErrorRecord;
import io.sluice.engine.job.BackoffPolicy;
import io.sluice.engine.job.BatchConfig;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.RetentionPolicy;
import io.sluice.engine.job.UniqueKey;
import java.io.IOException;
import java.math.BigInteger;

/**
 * Writes jobs and error records in their wire shapes (API.md §6) to any Jackson generator, so one
 * code path serves JSON and MessagePack. Absent optional fields are omitted, never null.
 */
public final class JobWriter {
  private static final JsonFactory PAYLOAD_PARSERS = Format.unbounded(new JsonFactory());

  private JobWriter() {}

  /** The payload is written only when {@code payload} is non-null (the with-payload shape). */
  public static void writeJob(JsonGenerator gen, JobSnapshot job, byte[] payload)
      throws IOException {
    gen.writeStartObject();
    writeJobFields(gen, job, payload);
    gen.writeEndObject();
  }

  /** An enqueue response element: the job without payload plus {@code duplicate}/{@code folded}. */
  public static void writeEnqueued(JsonGenerator gen, JobSnapshot job, boolean duplicate,
      boolean folded) throws IOException {
    gen.writeStartObject();
    writeJobFields(gen, job, null);
    gen.writeBooleanField("duplicate", duplicate);
    gen.writeBooleanField("folded", folded);
    gen.writeEndObject();
  }

  private static void writeJobFields(JsonGenerator gen, JobSnapshot job, byte[] payload)
      throws IOException {
    gen.writeStringField("id", job.id().toString());
    gen.writeStringField("type", job.type());
    gen.writeStringField("queue", job.queue());
    gen.writeNumberField("priority", job.priority());
    gen.writeStringField("status", job.status().wireName());
    if (payload != null) {
      gen.writeFieldName("payload");
      writePayload(gen, payload);
    }
    gen.writeNumberField("ready_at", job.readyAtMs());
    gen.writeNumberField("attempts", job.attempts());
    writeOverrides(gen, job.retryLimit(), job.backoff(), job.retention());
    writeTime(gen, "dequeued_at", job.dequeuedAtMs());
    writeTime(gen, "failed_at", job.failedAtMs());
    writeTime(gen, "completed_at", job.completedAtMs());
    writeTime(gen, "purge_at", job.purgeAtMs());
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

  private static void writeTime(JsonGenerator gen, String field, long valueMs) throws IOException {
    if (valueMs != Job.NONE) {
      gen.writeNumberField(field, valueMs);
    }
  }

  /** Payloads are stored as canonical JSON: spliced raw into JSON, transcoded otherwise. */
  public static void writePayload(JsonGenerator gen, byte[] payloadJson) throws IOException {
    if (gen instanceof JsonGeneratorImpl) {
      gen.writeRawValue(new RawJson(payloadJson));
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

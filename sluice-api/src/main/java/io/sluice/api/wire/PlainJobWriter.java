package io.sluice.api.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.UTF8JsonGenerator;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.RetentionPolicy;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes enqueue answers (API.md §8.2) and jobs (§6.1), the same as {@link JobWriter}. In JSON,
 * a plain job (no overrides, unique key, batch or budgets, and names that need no escaping) is
 * laid out here byte by byte and handed to the generator as one raw value, or written straight to
 * a stream with no generator at all: a bulk enqueue answers every job and a take stream writes
 * every job, and field-by-field generation was a seventh of the event loop's time under bulk
 * enqueue. Anything else goes through {@link JobWriter}.
 *
 * <p>One writer serves one body at a time: it reuses its buffer from job to job.
 */
public final class PlainJobWriter {
  private static final byte[] ID = ascii("{\"id\":\"");
  private static final byte[] TYPE = ascii("\",\"type\":\"");
  private static final byte[] QUEUE = ascii("\",\"queue\":\"");
  private static final byte[] PRIORITY = ascii("\",\"priority\":");
  private static final byte[] STATUS = ascii(",\"status\":\"");
  private static final byte[] PAYLOAD = ascii("\",\"payload\":");
  private static final byte[] READY_AT_AFTER_STATUS = ascii("\",\"ready_at\":");
  private static final byte[] READY_AT_AFTER_PAYLOAD = ascii(",\"ready_at\":");
  private static final byte[] ATTEMPTS = ascii(",\"attempts\":");
  private static final byte[] DEQUEUED_AT = ascii(",\"dequeued_at\":");
  private static final byte[] FAILED_AT = ascii(",\"failed_at\":");
  private static final byte[] COMPLETED_AT = ascii(",\"completed_at\":");
  private static final byte[] PURGE_AT = ascii(",\"purge_at\":");
  private static final byte[] DUPLICATE_TRUE = ascii(",\"duplicate\":true");
  private static final byte[] DUPLICATE_FALSE = ascii(",\"duplicate\":false");
  private static final byte[] FOLDED_TRUE = ascii(",\"folded\":true}");
  private static final byte[] FOLDED_FALSE = ascii(",\"folded\":false}");
  private static final byte[] END = ascii("}");
  /** A larger payload is copied once by the generic writer rather than twice here. */
  private static final int MAX_LAID_OUT_PAYLOAD = 4096;

  private final Layout layout = new Layout();

  /** An enqueue answer: the job without payload, with {@code duplicate} and {@code folded}. */
  public void writeEnqueued(JsonGenerator gen, JobSnapshot job, boolean duplicate,
      boolean folded) throws IOException {
    if (laysOut(gen) && layout.job(job, null)) {
      layout.append(duplicate ? DUPLICATE_TRUE : DUPLICATE_FALSE);
      layout.append(folded ? FOLDED_TRUE : FOLDED_FALSE);
      gen.writeRawValue(layout);
    } else {
      JobWriter.writeEnqueued(gen, job, duplicate, folded);
    }
  }

  /** A job, with its payload (stored canonical JSON) when {@code payload} is not null. */
  public void writeJob(JsonGenerator gen, JobSnapshot job, byte[] payload) throws IOException {
    if (laysOut(gen) && layOutJob(job, payload)) {
      gen.writeRawValue(layout);
    } else {
      JobWriter.writeJob(gen, job, payload);
    }
  }

  /**
   * Writes a job as {@link #writeJob(JsonGenerator, JobSnapshot, byte[])} does, straight to
   * {@code out} without a generator, when it is plain and its payload is at most 4 KiB; otherwise
   * writes nothing and returns false, and only a generator can write it. A take stream delivering
   * one job at a time would otherwise make a generator for each.
   */
  public boolean writeJob(OutputStream out, JobSnapshot job, byte[] payload) throws IOException {
    if (!layOutJob(job, payload)) {
      return false;
    }
    out.write(layout.utf8(), 0, layout.utf8Length());
    return true;
  }

  /** Lays the whole job out, closing brace included; false when the generic writer must. */
  private boolean layOutJob(JobSnapshot job, byte[] payload) {
    if ((payload != null && payload.length > MAX_LAID_OUT_PAYLOAD) || !layout.job(job, payload)) {
      return false;
    }
    layout.append(END);
    return true;
  }

  /** A plain JSON generator: its own output would be what is laid out here. */
  private static boolean laysOut(JsonGenerator gen) {
    return gen instanceof UTF8JsonGenerator && gen.getPrettyPrinter() == null
        && gen.getCharacterEscapes() == null;
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /** One job's JSON text, as a raw value the generator copies. */
  private static final class Layout extends RawJson {
    private static final long CHUNK = 1_000_000_000L;
    private static final int CHUNK_DIGITS = 9;
    private byte[] bytes = new byte[256];
    private int length;

    /**
     * Lays the job's fields out, short of its closing brace; false when the job is not plain and
     * the generic writer must.
     */
    boolean job(JobSnapshot job, byte[] payload) {
      RetentionPolicy retention = job.retention();
      if (job.retryLimit() != null || job.backoff() != null
          || (retention != null && !retention.isEmpty()) || job.unique() != null
          || job.batch() != null || !job.budgets().isEmpty()) {
        return false;
      }
      length = 0;
      append(ID);
      ensure(JobId.TEXT_LENGTH);
      job.id().renderInto(bytes, length);
      length += JobId.TEXT_LENGTH;
      append(TYPE);
      if (!appendName(job.type())) {
        return false;
      }
      append(QUEUE);
      if (!appendName(job.queue())) {
        return false;
      }
      append(PRIORITY);
      appendNumber(job.priority());
      append(STATUS);
      append(JobWriter.statusName(job.status()).asUnquotedUTF8());
      if (payload != null) {
        append(PAYLOAD);
        append(payload);
        append(READY_AT_AFTER_PAYLOAD);
      } else {
        append(READY_AT_AFTER_STATUS);
      }
      appendNumber(job.readyAtMs());
      append(ATTEMPTS);
      appendNumber(job.attempts());
      appendTime(DEQUEUED_AT, job.dequeuedAtMs());
      appendTime(FAILED_AT, job.failedAtMs());
      appendTime(COMPLETED_AT, job.completedAtMs());
      appendTime(PURGE_AT, job.purgeAtMs());
      return true;
    }

    private void append(byte[] text) {
      ensure(text.length);
      System.arraycopy(text, 0, bytes, length, text.length);
      length += text.length;
    }

    /** False when a char needs escaping or is not ASCII: the generic writer handles those. */
    private boolean appendName(String name) {
      int chars = name.length();
      ensure(chars);
      for (int i = 0; i < chars; i++) {
        char c = name.charAt(i);
        if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
          return false;
        }
        bytes[length++] = (byte) c;
      }
      return true;
    }

    private void appendTime(byte[] field, long valueMs) {
      if (valueMs != Job.NONE) {
        append(field);
        appendNumber(valueMs);
      }
    }

    /**
     * The decimal form {@link Long#toString(long)} gives. On C1 a division stays a division, a
     * 64-bit one dear: nine digits at a time are split off with one, and each digit of a chunk
     * comes from a multiplication by the reciprocal of ten.
     */
    private void appendNumber(long value) {
      ensure(20);
      if (value < 0) {
        if (value == Long.MIN_VALUE) {
          append(ascii(Long.toString(value)));
          return;
        }
        bytes[length++] = '-';
        value = -value;
      }
      if (value < CHUNK) {
        appendChunk((int) value, false);
      } else if (value < CHUNK * CHUNK) {
        long high = value / CHUNK;
        appendChunk((int) high, false);
        appendChunk((int) (value - high * CHUNK), true);
      } else {
        long high = value / CHUNK;
        long top = high / CHUNK;
        appendChunk((int) top, false);
        appendChunk((int) (high - top * CHUNK), true);
        appendChunk((int) (value - high * CHUNK), true);
      }
    }

    /** {@code chunk} below 10^9, zero-padded to nine digits when it follows another. */
    private void appendChunk(int chunk, boolean padded) {
      int digits = padded ? CHUNK_DIGITS : 1;
      if (!padded) {
        for (int rest = chunk; rest >= 10; rest = divideByTen(rest)) {
          digits++;
        }
      }
      for (int at = length + digits - 1; at >= length; at--) {
        int next = divideByTen(chunk);
        bytes[at] = (byte) ('0' + chunk - next * 10);
        chunk = next;
      }
      length += digits;
    }

    /** {@code n / 10} for {@code 0 <= n < 2^31}. */
    private static int divideByTen(int n) {
      return (int) ((n * 0xCCCCCCCDL) >>> 35);
    }

    private void ensure(int extra) {
      if (length + extra > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + extra));
      }
    }

    @Override
    byte[] utf8() {
      return bytes;
    }

    @Override
    int utf8Length() {
      return length;
    }
  }
}

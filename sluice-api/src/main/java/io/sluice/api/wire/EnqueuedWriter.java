package io.sluice.api.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.json.UTF8JsonGenerator;
import io.sluice.engine.job.Job;
import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import io.sluice.engine.job.JobStatus;
import io.sluice.engine.job.RetentionPolicy;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes enqueue answers (API.md §8.2), the same as {@link JobWriter#writeEnqueued}. In JSON, the
 * answer of a plain job (no overrides, unique key, batch or budgets, and names that need no
 * escaping) is laid out here byte by byte and handed to the generator as one raw value: a bulk
 * enqueue answers every job, and field-by-field generation was a seventh of the event loop's
 * time under bulk enqueue. Anything else goes through {@link JobWriter}.
 *
 * <p>One writer serves one body at a time: it reuses its buffer from answer to answer.
 */
public final class EnqueuedWriter {
  private static final byte[] ID = ascii("{\"id\":\"");
  private static final byte[] TYPE = ascii("\",\"type\":\"");
  private static final byte[] QUEUE = ascii("\",\"queue\":\"");
  private static final byte[] PRIORITY = ascii("\",\"priority\":");
  private static final byte[] STATUS = ascii(",\"status\":\"");
  private static final byte[] READY_AT = ascii("\",\"ready_at\":");
  private static final byte[] ATTEMPTS = ascii(",\"attempts\":");
  private static final byte[] DEQUEUED_AT = ascii(",\"dequeued_at\":");
  private static final byte[] FAILED_AT = ascii(",\"failed_at\":");
  private static final byte[] COMPLETED_AT = ascii(",\"completed_at\":");
  private static final byte[] PURGE_AT = ascii(",\"purge_at\":");
  private static final byte[] DUPLICATE_TRUE = ascii(",\"duplicate\":true");
  private static final byte[] DUPLICATE_FALSE = ascii(",\"duplicate\":false");
  private static final byte[] FOLDED_TRUE = ascii(",\"folded\":true}");
  private static final byte[] FOLDED_FALSE = ascii(",\"folded\":false}");
  private static final byte[][] STATUS_NAMES = statusNames();

  private final Answer answer = new Answer();

  public void write(JsonGenerator gen, JobSnapshot job, boolean duplicate, boolean folded)
      throws IOException {
    if (gen instanceof UTF8JsonGenerator && answer.layOut(job, duplicate, folded)) {
      gen.writeRawValue(answer);
    } else {
      JobWriter.writeEnqueued(gen, job, duplicate, folded);
    }
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[][] statusNames() {
    JobStatus[] statuses = JobStatus.values();
    byte[][] names = new byte[statuses.length][];
    for (JobStatus status : statuses) {
      names[status.ordinal()] = ascii(status.wireName());
    }
    return names;
  }

  /** One answer's JSON text, ASCII only, as a raw value the generator copies. */
  private static final class Answer implements SerializableString {
    private byte[] bytes = new byte[256];
    private int length;

    /** Lays the answer out; false when the job is not plain and the generic writer must. */
    boolean layOut(JobSnapshot job, boolean duplicate, boolean folded) {
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
      append(STATUS_NAMES[job.status().ordinal()]);
      append(READY_AT);
      appendNumber(job.readyAtMs());
      append(ATTEMPTS);
      appendNumber(job.attempts());
      appendTime(DEQUEUED_AT, job.dequeuedAtMs());
      appendTime(FAILED_AT, job.failedAtMs());
      appendTime(COMPLETED_AT, job.completedAtMs());
      appendTime(PURGE_AT, job.purgeAtMs());
      append(duplicate ? DUPLICATE_TRUE : DUPLICATE_FALSE);
      append(folded ? FOLDED_TRUE : FOLDED_FALSE);
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

    /** The decimal form {@link Long#toString(long)} gives. */
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
      int digits = 1;
      for (long rest = value / 10; rest != 0; rest /= 10) {
        digits++;
      }
      for (int at = length + digits - 1; at >= length; at--) {
        bytes[at] = (byte) ('0' + value % 10);
        value /= 10;
      }
      length += digits;
    }

    private void ensure(int extra) {
      if (length + extra > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + extra));
      }
    }

    @Override
    public int appendUnquotedUTF8(byte[] buffer, int offset) {
      if (offset + length > buffer.length) {
        return -1;
      }
      System.arraycopy(bytes, 0, buffer, offset, length);
      return length;
    }

    /** What the generator writes when its buffer lacks room for the whole answer. */
    @Override
    public byte[] asUnquotedUTF8() {
      return Arrays.copyOf(bytes, length);
    }

    @Override
    public String getValue() {
      return new String(bytes, 0, length, StandardCharsets.US_ASCII);
    }

    @Override
    public int charLength() {
      return length;
    }

    @Override
    public int appendUnquoted(char[] buffer, int offset) {
      if (offset + length > buffer.length) {
        return -1;
      }
      for (int i = 0; i < length; i++) {
        buffer[offset + i] = (char) bytes[i];
      }
      return length;
    }

    @Override
    public int writeUnquotedUTF8(OutputStream out) throws IOException {
      out.write(bytes, 0, length);
      return length;
    }

    @Override
    public int putUnquotedUTF8(ByteBuffer buffer) {
      if (buffer.remaining() < length) {
        return -1;
      }
      buffer.put(bytes, 0, length);
      return length;
    }

    @Override
    public char[] asQuotedChars() {
      throw new UnsupportedOperationException("an answer is a raw value, never quoted");
    }

    @Override
    public byte[] asQuotedUTF8() {
      throw new UnsupportedOperationException("an answer is a raw value, never quoted");
    }

    @Override
    public int appendQuotedUTF8(byte[] buffer, int offset) {
      throw new UnsupportedOperationException("an answer is a raw value, never quoted");
    }

    @Override
    public int appendQuoted(char[] buffer, int offset) {
      throw new UnsupportedOperationException("an answer is a raw value, never quoted");
    }

    @Override
    public int writeQuotedUTF8(OutputStream out) {
      throw new UnsupportedOperationException("an answer is a raw value, never quoted");
    }

    @Override
    public int putQuotedUTF8(ByteBuffer buffer) {
      throw new UnsupportedOperationException("an answer is a raw value, never quoted");
    }
  }
}

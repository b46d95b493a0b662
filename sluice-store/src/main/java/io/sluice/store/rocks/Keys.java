package io.sluice.store.rocks;

import io.sluice.engine.job.JobId;
import io.sluice.engine.store.Mutation;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Byte layout of every key. All integers are big-endian so that byte order is numeric order.
 *
 * <ul>
 *   <li>{@code jobs}, {@code payloads}: job id as 16 bytes (high 64 bits, then low 64 bits), so
 *       keys sort in creation order.
 *   <li>{@code errors}: job id (16 bytes) followed by the record's sequence number (its position
 *       in the job's error list, which is its attempt number until the job is first throttled,
 *       X6) as an unsigned 32-bit integer (4 bytes), so one job's records are contiguous and in
 *       the order they were written.
 *   <li>{@code budgets}, {@code bucket_states}, {@code crons}: the budget key or cron group name as UTF-8 bytes.
 *   <li>{@code pointers}: one byte for the pointer kind, then the key as UTF-8 bytes; the value
 *       is the job key.
 * </ul>
 */
final class Keys {
  static final int JOB_KEY_LENGTH = 16;
  static final int ERROR_KEY_LENGTH = 20;

  private Keys() {}

  static byte[] job(JobId id) {
    return job(id.hi(), id.lo());
  }

  static byte[] job(long hi, long lo) {
    byte[] key = new byte[JOB_KEY_LENGTH];
    for (int i = 0; i < 8; i++) {
      key[i] = (byte) (hi >>> (56 - 8 * i));
      key[8 + i] = (byte) (lo >>> (56 - 8 * i));
    }
    return key;
  }

  static JobId jobId(byte[] key) {
    ByteBuffer buffer = ByteBuffer.wrap(key);
    return new JobId(buffer.getLong(), buffer.getLong());
  }

  static byte[] budget(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  static String budgetKey(byte[] key) {
    return new String(key, StandardCharsets.UTF_8);
  }

  static byte[] error(JobId id, long sequence) {
    return ByteBuffer.allocate(ERROR_KEY_LENGTH)
        .putLong(id.hi())
        .putLong(id.lo())
        .putInt((int) sequence)
        .array();
  }

  /** The sequence number of an error record's key. */
  static int errorSequence(byte[] key) {
    return ByteBuffer.wrap(key).getInt(JOB_KEY_LENGTH);
  }

  static boolean isErrorOf(byte[] key, JobId id) {
    if (key.length != ERROR_KEY_LENGTH) {
      return false;
    }
    ByteBuffer buffer = ByteBuffer.wrap(key);
    return buffer.getLong() == id.hi() && buffer.getLong() == id.lo();
  }

  static byte[] pointerPrefix(Mutation.Pointer kind) {
    return new byte[] {(byte) (kind.ordinal() + 1)};
  }

  static byte[] pointer(Mutation.Pointer kind, String key) {
    byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
    byte[] bytes = new byte[utf8.length + 1];
    bytes[0] = (byte) (kind.ordinal() + 1);
    System.arraycopy(utf8, 0, bytes, 1, utf8.length);
    return bytes;
  }

  static String pointerKey(byte[] bytes) {
    return new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8);
  }
}

package io.sluice.engine.job;

import java.nio.charset.StandardCharsets;

/**
 * A 128-bit, time-ordered job identifier rendered as 25 lowercase base-36 digits.
 *
 * <p>Immutable. The natural order of two ids is the lexicographic order of their text, which is
 * the order in which they were generated.
 */
public final class JobId implements Comparable<JobId> {
  public static final int TEXT_LENGTH = 25;
  private static final long CHUNK = 60_466_176L; // 36^5: remainder << 32 stays below 2^63
  private static final int CHUNK_DIGITS = 5;
  private static final byte[] DIGITS =
      "0123456789abcdefghijklmnopqrstuvwxyz".getBytes(StandardCharsets.ISO_8859_1);
  /** ceil(2^88 / 36^5): n / 36^5 is (n * this) >> 88 for every 0 <= n < 2^58. */
  private static final long CHUNK_RECIPROCAL = 0x4707E97D9E221144L;
  private static final int PAIR = 36 * 36;
  /** ceil(2^31 / 36^2): n / 36^2 is (n * this) >> 31 for every 0 <= n < 36^5 (checked all). */
  private static final long PAIR_RECIPROCAL = 1_657_009L;
  private static final int PAIR_SHIFT = 31;
  private static final byte[] PAIRS = pairs();

  private final long hi;
  private final long lo;

  public JobId(long hi, long lo) {
    this.hi = hi;
    this.lo = lo;
  }

  public long hi() {
    return hi;
  }

  public long lo() {
    return lo;
  }

  /** Parses the 25-character form; returns null when the text is not a well-formed id. */
  public static JobId parseOrNull(String text) {
    if (text == null || text.length() != TEXT_LENGTH) {
      return null;
    }
    long hi = 0;
    long lo = 0;
    for (int i = 0; i < TEXT_LENGTH; i++) {
      char c = text.charAt(i);
      int digit = digitValue(c);
      if (digit < 0) {
        return null;
      }
      // (hi:lo) = (hi:lo) * 36 + digit, detecting overflow past 128 bits.
      long loTimesLow = (lo & 0xFFFFFFFFL) * 36 + digit;
      long loTimesHigh = (lo >>> 32) * 36 + (loTimesLow >>> 32);
      long newLo = (loTimesHigh << 32) | (loTimesLow & 0xFFFFFFFFL);
      long carry = loTimesHigh >>> 32;
      long hiLow = (hi & 0xFFFFFFFFL) * 36 + carry;
      long hiHigh = (hi >>> 32) * 36 + (hiLow >>> 32);
      if ((hiHigh >>> 32) != 0) {
        return null;
      }
      hi = (hiHigh << 32) | (hiLow & 0xFFFFFFFFL);
      lo = newLo;
    }
    return new JobId(hi, lo);
  }

  /**
   * Parses the 25-character form from ASCII bytes at {@code offset}; returns null when they are
   * not a well-formed id. A bulk acknowledgement's ids are read from its body this way, without
   * a string made for each. Five digits at a time: each group is a small number, and the 128-bit
   * value takes five multiplications by 36^5 instead of twenty-five by 36.
   */
  public static JobId parseOrNull(byte[] ascii, int offset) {
    long hi = 0;
    long lo = 0;
    for (int group = offset; group < offset + TEXT_LENGTH; group += CHUNK_DIGITS) {
      long digits = 0;
      for (int i = group; i < group + CHUNK_DIGITS; i++) {
        int c = ascii[i];
        int digit = digitValue(c);
        if (digit < 0) {
          return null;
        }
        digits = digits * 36 + digit;
      }
      // (hi:lo) = (hi:lo) * 36^5 + digits, refusing what passes 128 bits.
      long loTimes = lo * CHUNK;
      long newLo = loTimes + digits;
      long carry = unsignedTimesChunkHigh(lo) + (Long.compareUnsigned(newLo, loTimes) < 0 ? 1 : 0);
      long hiTimes = hi * CHUNK;
      long newHi = hiTimes + carry;
      if (unsignedTimesChunkHigh(hi) != 0 || Long.compareUnsigned(newHi, hiTimes) < 0) {
        return null;
      }
      hi = newHi;
      lo = newLo;
    }
    return new JobId(hi, lo);
  }

  /** The value of a base-36 digit, lower case only, or -1 for any other character. */
  private static int digitValue(int c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10 : -1;
  }

  /** The high 64 bits of {@code n * 36^5}, {@code n} read as unsigned. */
  private static long unsignedTimesChunkHigh(long n) {
    return Math.multiplyHigh(n, CHUNK) + ((n >> 63) & CHUNK);
  }

  /** True when the text has the id shape: 25 characters of [0-9a-z]. */
  public static boolean isWellFormed(String text) {
    if (text == null || text.length() != TEXT_LENGTH) {
      return false;
    }
    for (int i = 0; i < TEXT_LENGTH; i++) {
      char c = text.charAt(i);
      if (digitValue(c) < 0) {
        return false;
      }
    }
    return true;
  }

  /** Milliseconds since the epoch at which this id was generated (its top 48 bits). */
  public long timestampMs() {
    return hi >>> 16;
  }

  @Override
  public int compareTo(JobId other) {
    int byHi = Long.compareUnsigned(hi, other.hi);
    return byHi != 0 ? byHi : Long.compareUnsigned(lo, other.lo);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JobId other && other.hi == hi && other.lo == lo;
  }

  @Override
  public int hashCode() {
    long h = hi * 31 + lo;
    return (int) (h ^ (h >>> 32));
  }

  /**
   * The 25-character form, rendered on each call: a job lives on in memory for as long as it is
   * unfinished, and keeping its text beside it would cost 72 bytes per pending job.
   */
  @Override
  public String toString() {
    return render();
  }

  /**
   * Renders base 36 by dividing the 128-bit value by 36^5 five times over 32-bit limbs; each
   * remainder yields five digits. The divisions by constants are multiplications by their
   * reciprocals: the server runs on the C1 compiler, which leaves a division a division, and
   * every job's id is rendered in its enqueue answer and again in its delivery.
   */
  private String render() {
    byte[] out = new byte[TEXT_LENGTH];
    renderInto(out, 0);
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  /**
   * Writes the 25-character form as ASCII bytes at {@code offset}: an encoder that takes bytes
   * needs no string made and copied out again.
   */
  public void renderInto(byte[] out, int offset) {
    long l0 = hi >>> 32;
    long l1 = hi & 0xFFFFFFFFL;
    long l2 = lo >>> 32;
    long l3 = lo & 0xFFFFFFFFL;
    int pos = offset + TEXT_LENGTH;
    while (pos > offset) {
      long q = divideByChunk(l0);
      long cur = ((l0 - q * CHUNK) << 32) | l1;
      l0 = q;
      q = divideByChunk(cur);
      cur = ((cur - q * CHUNK) << 32) | l2;
      l1 = q;
      q = divideByChunk(cur);
      cur = ((cur - q * CHUNK) << 32) | l3;
      l2 = q;
      q = divideByChunk(cur);
      int digits = (int) (cur - q * CHUNK);
      l3 = q;
      // Five digits: two pairs from a table, then one; 25 digits are five whole chunks.
      int rest = (int) ((digits * PAIR_RECIPROCAL) >>> PAIR_SHIFT);
      int pair = 2 * (digits - rest * PAIR);
      out[--pos] = PAIRS[pair + 1];
      out[--pos] = PAIRS[pair];
      int first = (int) ((rest * PAIR_RECIPROCAL) >>> PAIR_SHIFT);
      pair = 2 * (rest - first * PAIR);
      out[--pos] = PAIRS[pair + 1];
      out[--pos] = PAIRS[pair];
      out[--pos] = DIGITS[first];
    }
  }

  /** Every two-digit string of base 36, "00" to "zz", back to back. */
  private static byte[] pairs() {
    byte[] pairs = new byte[2 * PAIR];
    for (int i = 0; i < PAIR; i++) {
      pairs[2 * i] = DIGITS[i / 36];
      pairs[2 * i + 1] = DIGITS[i % 36];
    }
    return pairs;
  }

  /** {@code n / 36^5} for {@code 0 <= n < 2^58}: a remainder shifted up by 32 bits stays below. */
  private static long divideByChunk(long n) {
    return Math.multiplyHigh(n, CHUNK_RECIPROCAL) >>> 24;
  }
}

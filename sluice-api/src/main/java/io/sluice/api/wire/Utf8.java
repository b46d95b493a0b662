package io.sluice.api.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Strict UTF-8 as the Unicode standard defines it (table 3-7, "well-formed UTF-8 byte
 * sequences"): no overlong forms, no encoded surrogates (U+D800–U+DFFF), nothing above U+10FFFF,
 * no truncated or stray continuation bytes. Stateless; any thread.
 */
public final class Utf8 {
  /** How every rejection of ill-formed text starts, wherever the text came in. */
  public static final String MALFORMED = "malformed UTF-8";
  /** Eight bytes at a time, to skip ASCII runs quickly. */
  static final VarHandle WORDS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  /** The high bit of each of eight bytes: a word without any is all ASCII. */
  static final long HIGH_BITS = 0x8080808080808080L;
  /**
   * The low bit of each of eight bytes. {@code (x - LOW_BITS) & ~x & HIGH_BITS} is non-zero
   * exactly when a byte of {@code x} is zero (SWAR), so {@code x ^ (b * LOW_BITS)} tests for byte
   * {@code b}.
   */
  static final long LOW_BITS = 0x0101010101010101L;
  /** Eight backslashes. */
  static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;

  private Utf8() {}

  /** The index of the first byte of the first ill-formed sequence in {@code [from, to)}, or -1. */
  public static int malformedAt(byte[] bytes, int from, int to) {
    int i = from;
    while (i < to) {
      // Whole words of ASCII first, eight bytes per step.
      while (i + 8 <= to && ((long) WORDS.get(bytes, i) & HIGH_BITS) == 0) {
        i += 8;
      }
      if (i == to) {
        return -1;
      }
      if (bytes[i] >= 0) {
        i++;
        continue;
      }
      int length = sequenceLength(bytes, i, to);
      if (length < 0) {
        return i;
      }
      i += length;
    }
    return -1;
  }

  /**
   * The length of the well-formed multi-byte sequence starting at {@code i} (whose byte is not
   * ASCII) and ending before {@code to}, or -1 when it is ill-formed.
   */
  static int sequenceLength(byte[] bytes, int i, int to) {
    int lead = bytes[i] & 0xFF;
    if (lead < 0xC2 || lead > 0xF4) {
      return -1; // a continuation byte, an overlong 2-byte lead (C0, C1), or beyond U+10FFFF
    }
    if (lead < 0xE0) {
      return i + 1 < to && continuation(bytes[i + 1]) ? 2 : -1;
    }
    if (i + 1 >= to) {
      return -1;
    }
    // The second byte's range excludes overlong forms (E0, F0), surrogates (ED) and code points
    // above U+10FFFF (F4).
    int second = bytes[i + 1] & 0xFF;
    int low = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
    int high = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
    if (second < low || second > high) {
      return -1;
    }
    if (lead < 0xF0) {
      return i + 2 < to && continuation(bytes[i + 2]) ? 3 : -1;
    }
    return i + 3 < to && continuation(bytes[i + 2]) && continuation(bytes[i + 3]) ? 4 : -1;
  }

  private static boolean continuation(byte b) {
    return (b & 0xC0) == 0x80;
  }
}

package io.sluice.bench;

import java.nio.charset.StandardCharsets;

/**
 * Pulls the few fields the bench needs out of a job's JSON without building a tree.
 *
 * <p>Full JSON parsing of every streamed job would cost the client more CPU than the server
 * spends producing it on a 2-core box. The bench controls the payload it enqueues, so a key scan
 * is reliable: it finds {@code "id"}, {@code "seq"} and {@code "nonce"} keys (tolerating
 * whitespace around the colon) and ignores everything else. Results are left in fields so a scan
 * allocates nothing; one instance per thread.
 */
final class JobLineScanner {

  private static final byte[] ID_KEY = ascii("\"id\"");
  private static final byte[] SEQ_KEY = ascii("\"seq\"");
  private static final byte[] NONCE_KEY = ascii("\"nonce\"");
  private static final byte[] DEQUEUED_AT_KEY = ascii("\"dequeued_at\"");
  private static final byte[] ATTEMPTS_KEY = ascii("\"attempts\"");

  private final byte[] expectedNonce;

  private int idStart;
  private int idEnd;
  private int seq;
  private boolean nonceMatches;

  /** @param expectedNonce the run's nonce; jobs carrying another one are strays from elsewhere */
  JobLineScanner(String expectedNonce) {
    this.expectedNonce = ascii(expectedNonce);
  }

  /** @return false when the line has no string "id" field, i.e. it is not a job */
  boolean scan(byte[] b, int from, int to) {
    idStart = -1;
    idEnd = -1;
    seq = -1;
    nonceMatches = false;

    int v = valueAfterKey(b, from, to, ID_KEY);
    if (v < 0 || b[v] != '"') {
      return false;
    }
    int close = indexOf(b, v + 1, to, (byte) '"');
    if (close < 0) {
      return false;
    }
    idStart = v + 1;
    idEnd = close;

    v = valueAfterKey(b, from, to, SEQ_KEY);
    if (v >= 0) {
      seq = parseNonNegativeInt(b, v, to);
    }
    v = valueAfterKey(b, from, to, NONCE_KEY);
    if (v >= 0 && b[v] == '"') {
      int after = v + 1 + expectedNonce.length;
      nonceMatches = after < to && b[after] == '"' && regionEquals(b, v + 1, expectedNonce);
    }
    return true;
  }

  String id(byte[] b) {
    // Ids are ASCII; Latin-1 decoding is a straight copy into a compact string.
    return new String(b, idStart, idEnd - idStart, StandardCharsets.ISO_8859_1);
  }

  /** The payload's sequence number, or -1 when absent or not a plain non-negative integer. */
  int seq() {
    return seq;
  }

  boolean nonceMatches() {
    return nonceMatches;
  }

  /**
   * The job's {@code dequeued_at} (the server's dispatch instant, epoch ms), or -1 when absent.
   * Scanned only on request: most workloads never need it.
   */
  static long dequeuedAtMs(byte[] b, int from, int to) {
    return nonNegativeLongAfterKey(b, from, to, DEQUEUED_AT_KEY);
  }

  /** The job's {@code attempts} (failures recorded so far), or -1 when absent; scanned on request. */
  static long attempts(byte[] b, int from, int to) {
    return nonNegativeLongAfterKey(b, from, to, ATTEMPTS_KEY);
  }

  /** Counts "id" keys; used to check that a bulk-enqueue answer lists every job we sent. */
  static int countIdKeys(byte[] b, int from, int to) {
    int count = 0;
    int i = from;
    while (true) {
      int v = valueAfterKey(b, i, to, ID_KEY);
      if (v < 0) {
        return count;
      }
      count++;
      i = v;
    }
  }

  /**
   * Index of the first byte of the value for {@code key}, or -1. A quoted string followed by a
   * colon can only be a key, which is what tells the key "id" apart from a value "id".
   */
  static int valueAfterKey(byte[] b, int from, int to, byte[] key) {
    int i = from;
    while ((i = indexOf(b, i, to, key)) >= 0) {
      int j = skipWhitespace(b, i + key.length, to);
      if (j < to && b[j] == ':') {
        j = skipWhitespace(b, j + 1, to);
        return j < to ? j : -1;
      }
      i++;
    }
    return -1;
  }

  private static long nonNegativeLongAfterKey(byte[] b, int from, int to, byte[] key) {
    int v = valueAfterKey(b, from, to, key);
    if (v < 0) {
      return -1;
    }
    long value = 0;
    int i = v;
    while (i < to && b[i] >= '0' && b[i] <= '9' && value < Long.MAX_VALUE / 10) {
      value = value * 10 + (b[i] - '0');
      i++;
    }
    return i == v ? -1 : value;
  }

  private static int parseNonNegativeInt(byte[] b, int from, int to) {
    long value = 0;
    int i = from;
    while (i < to && b[i] >= '0' && b[i] <= '9') {
      value = value * 10 + (b[i] - '0');
      if (value > Integer.MAX_VALUE) {
        return -1;
      }
      i++;
    }
    return i == from ? -1 : (int) value;
  }

  private static int skipWhitespace(byte[] b, int i, int to) {
    while (i < to && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n')) {
      i++;
    }
    return i;
  }

  private static int indexOf(byte[] b, int from, int to, byte target) {
    for (int i = from; i < to; i++) {
      if (b[i] == target) {
        return i;
      }
    }
    return -1;
  }

  private static int indexOf(byte[] b, int from, int to, byte[] pattern) {
    byte first = pattern[0];
    int last = to - pattern.length;
    outer:
    for (int i = from; i <= last; i++) {
      if (b[i] != first) {
        continue;
      }
      for (int k = 1; k < pattern.length; k++) {
        if (b[i + k] != pattern[k]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static boolean regionEquals(byte[] b, int at, byte[] expected) {
    if (at + expected.length > b.length) {
      return false;
    }
    for (int k = 0; k < expected.length; k++) {
      if (b[at + k] != expected[k]) {
        return false;
      }
    }
    return true;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}

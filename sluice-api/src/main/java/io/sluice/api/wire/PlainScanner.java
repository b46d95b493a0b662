package io.sluice.api.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A cursor over a JSON body for the readers of plain request shapes ({@link PlainEnqueueReader},
 * {@link PlainAckReader}): each reads the one shape it knows byte by byte and gives up, by
 * throwing {@link #NOT_PLAIN}, at the first byte it does not expect; its caller then reads the
 * body with Jackson. Bytes are read without bounds checks: running off the end gives up too, so
 * an indexing mistake here would cost speed, not correctness; the allocation budget of reading a
 * bulk enqueue (sluice-jmh's {@code HotPathAllocationTest}) is set below what the Jackson path
 * allocates, so that a plain body falling back is caught there.
 */
abstract class PlainScanner {
  /** Thrown to give up: shared and immutable (no stack trace, no suppressed exceptions). */
  static final GiveUp NOT_PLAIN = new GiveUp();

  /** Giving up is not an error: the caller reads the body another way. */
  static final class GiveUp extends RuntimeException {
    private GiveUp() {
      super("not a plain body", null, false, false);
    }
  }

  final byte[] body;
  int at;

  PlainScanner(byte[] body) {
    this.body = body;
  }

  /** Runs the scan; false when it gave up. */
  final boolean scanned(Runnable scan) {
    try {
      scan.run();
      return true;
    } catch (GiveUp | ArrayIndexOutOfBoundsException e) {
      return false; // an AIOOBE: the body ended inside a value
    }
  }

  /**
   * A body that is an object of one field, {@code name}, holding a non-empty array whose elements
   * {@code element} reads from their first byte; whitespace allowed between all of its tokens.
   */
  final void soleArrayField(byte[] name, Runnable element) {
    skipSpace();
    expect('{');
    skipSpace();
    if (!stringIs(printableString(), name)) {
      throw NOT_PLAIN;
    }
    skipSpace();
    expect(':');
    skipSpace();
    expect('[');
    do {
      skipSpace();
      element.run();
      skipSpace();
    } while (accept(','));
    expect(']');
    skipSpace();
    expect('}');
    end();
  }

  /** A field name as the bytes {@link #stringIs} compares with. */
  static byte[] ascii(String name) {
    return name.getBytes(StandardCharsets.US_ASCII);
  }

  /** Nothing but whitespace up to the end of the body. */
  final void end() {
    skipSpace();
    if (at != body.length) {
      throw NOT_PLAIN;
    }
  }

  final void skipSpace() {
    byte[] text = body;
    int i = at;
    while (i < text.length && text[i] <= ' '
        && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) {
      i++;
    }
    at = i;
  }

  final void expect(char c) {
    if (body[at] != c) {
      throw NOT_PLAIN;
    }
    at++;
  }

  final boolean accept(char c) {
    if (at < body.length && body[at] == c) {
      at++;
      return true;
    }
    return false;
  }

  /** Whether the string whose text starts at {@code start} (cursor past it) is {@code name}. */
  final boolean stringIs(int start, byte[] name) {
    return at - 1 - start == name.length
        && Arrays.equals(body, start, at - 1, name, 0, name.length);
  }

  /**
   * A string of printable ASCII without quote or backslash, so its bytes are its chars; returns
   * where its text starts, the cursor left past the closing quote.
   */
  final int printableString() {
    expect('"');
    byte[] text = body;
    int start = at;
    int end = start;
    for (byte b = text[end]; b != '"'; b = text[++end]) {
      if (b < 0x20 || b > 0x7E || b == '\\') {
        throw NOT_PLAIN;
      }
    }
    at = end + 1;
    return start;
  }
}

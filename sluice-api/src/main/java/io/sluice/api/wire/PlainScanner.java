package io.sluice.api.wire;

/**
 * A cursor over a JSON body for the readers of plain request shapes ({@link PlainEnqueueReader},
 * {@link PlainAckReader}): each reads the one shape it knows byte by byte and gives up, by
 * throwing {@link #NOT_PLAIN}, at the first byte it does not expect; its caller then reads the
 * body with Jackson. Bytes are read without bounds checks: running off the end gives up too.
 */
abstract class PlainScanner {
  /** Thrown to give up; preallocated, without a stack trace, as giving up is not an error. */
  static final RuntimeException NOT_PLAIN = new RuntimeException("not plain", null, false,
      false) {};

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
    } catch (ArrayIndexOutOfBoundsException e) {
      return false; // the body ended inside a value
    } catch (RuntimeException e) {
      if (e == NOT_PLAIN) {
        return false;
      }
      throw e;
    }
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

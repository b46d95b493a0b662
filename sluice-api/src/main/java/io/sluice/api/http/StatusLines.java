package io.sluice.api.http;

import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 status lines as Vert.x writes them, CR LF included, encoded once per status code
 * instead of once per answer.
 */
final class StatusLines {
  private static final int FIRST = 100;
  private static final int LAST = 599;
  private static final byte[][] LINES = new byte[LAST - FIRST + 1][];

  static {
    for (int status = FIRST; status <= LAST; status++) {
      LINES[status - FIRST] = encode(status);
    }
  }

  private StatusLines() {}

  /** The status line's bytes; the caller must not change them. */
  static byte[] of(int status) {
    return status >= FIRST && status <= LAST ? LINES[status - FIRST] : encode(status);
  }

  private static byte[] encode(int status) {
    return HttpError.statusLine(status).getBytes(StandardCharsets.US_ASCII);
  }
}

package io.sluice.client;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A response body read from a kept-alive connection: it hands out the bytes of its current
 * segment and never reads past them, so the connection is left at the next response, and
 * closing it leaves the connection to its owner. A sized body is one segment; a chunked body
 * moves from chunk to chunk.
 */
abstract class BodyInputStream extends InputStream {
  protected final InputStream in;
  /** Bytes left in the current segment. */
  protected long remaining;

  BodyInputStream(InputStream in, long remaining) {
    this.in = in;
    this.remaining = remaining;
  }

  /** Moves to the next segment with data, setting {@link #remaining}; false at the end. */
  protected abstract boolean nextSegment() throws IOException;

  /** What a cut-off body is called in the error. */
  protected abstract String cutOffMessage();

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (remaining == 0 && !nextSegment()) {
      return -1;
    }
    int read = in.read(b, off, (int) Math.min(len, remaining));
    if (read < 0) {
      throw new EOFException(cutOffMessage());
    }
    remaining -= read;
    return read;
  }

  @Override
  public void close() {
    // The connection outlives its responses.
  }

  /**
   * One CRLF- (or LF-) terminated line of a response head or chunk framing, without its line
   * end, at most {@code maxBytes} long.
   */
  static String readLine(InputStream in, int maxBytes, String cutOffMessage, String tooLongMessage)
      throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(64);
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new EOFException(cutOffMessage);
      }
      if (line.size() >= maxBytes) {
        throw new IOException(tooLongMessage);
      }
      line.write(b);
    }
    byte[] bytes = line.toByteArray();
    boolean crlf = bytes.length > 0 && bytes[bytes.length - 1] == '\r';
    int length = crlf ? bytes.length - 1 : bytes.length;
    return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
  }
}

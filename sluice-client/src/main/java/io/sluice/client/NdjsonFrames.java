package io.sluice.client;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/** One JSON document per line; a blank line is a heartbeat. */
final class NdjsonFrames implements FrameReader {
  private final InputStream in;
  private byte[] buffer = new byte[64 * 1024];
  /** Unread bytes are {@code buffer[start, end)}. */
  private int start;
  private int end;

  NdjsonFrames(InputStream in) {
    this.in = in;
  }

  @Override
  public byte[] next() throws IOException {
    int scanned = start;
    while (true) {
      for (int i = scanned; i < end; i++) {
        if (buffer[i] == '\n') {
          byte[] line = Arrays.copyOfRange(buffer, start, i);
          start = i + 1;
          return line;
        }
      }
      scanned = end - start;
      if (!fill()) {
        return null; // a partial last line is a cut-off job, not a message
      }
      scanned += start;
    }
  }

  /** Moves the unread bytes to the front, growing the buffer if a line fills it, and reads. */
  private boolean fill() throws IOException {
    int unread = end - start;
    if (unread == buffer.length) {
      buffer = Arrays.copyOf(buffer, buffer.length * 2);
    } else if (start > 0) {
      System.arraycopy(buffer, start, buffer, 0, unread);
    }
    start = 0;
    end = unread;
    int read = in.read(buffer, end, buffer.length - end);
    if (read < 0) {
      return false;
    }
    end += read;
    return true;
  }
}

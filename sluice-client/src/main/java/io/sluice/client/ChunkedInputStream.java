package io.sluice.client;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Decodes an HTTP/1.1 chunked body. A read returns what the current chunk has in hand and never
 * reads past it, so a take stream's reader sees each job as soon as its chunk arrives.
 */
final class ChunkedInputStream extends InputStream {
  private static final int MAX_SIZE_LINE = 1024;

  private final InputStream in;
  private long remaining;
  private boolean afterData;
  private boolean finished;

  ChunkedInputStream(InputStream in) {
    this.in = in;
  }

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
    if (remaining == 0 && !nextChunk()) {
      return -1;
    }
    int read = in.read(b, off, (int) Math.min(len, remaining));
    if (read < 0) {
      throw new EOFException("chunked body cut off");
    }
    remaining -= read;
    return read;
  }

  /** Moves to the next chunk with data; false at the last chunk. */
  private boolean nextChunk() throws IOException {
    if (finished) {
      return false;
    }
    if (afterData && !line().isEmpty()) {
      throw new IOException("chunk data not followed by CRLF");
    }
    String sizeLine = line();
    int extension = sizeLine.indexOf(';');
    String size = (extension >= 0 ? sizeLine.substring(0, extension) : sizeLine).trim();
    try {
      remaining = Long.parseLong(size, 16);
    } catch (NumberFormatException e) {
      throw new IOException("bad chunk size: " + sizeLine);
    }
    if (remaining < 0) {
      throw new IOException("bad chunk size: " + sizeLine);
    }
    afterData = true;
    if (remaining == 0) {
      while (!line().isEmpty()) {
        // Trailer fields: none that a worker needs.
      }
      finished = true;
      return false;
    }
    return true;
  }

  private String line() throws IOException {
    StringBuilder line = new StringBuilder();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        throw new EOFException("chunked body cut off");
      }
      if (line.length() >= MAX_SIZE_LINE) {
        throw new IOException("chunk size line too long");
      }
      if (b != '\r') {
        line.append((char) b);
      }
    }
    return line.toString();
  }

  @Override
  public void close() {
    // The connection belongs to its owner, who closes it.
  }
}

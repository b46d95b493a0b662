package io.sluice.client;

import java.io.IOException;
import java.io.InputStream;

/**
 * Decodes an HTTP/1.1 chunked body. A read returns what the current chunk has in hand and never
 * reads past it, so a take stream's reader sees each job as soon as its chunk arrives.
 */
final class ChunkedInputStream extends BodyInputStream {
  private static final int MAX_SIZE_LINE = 1024;

  private boolean afterData;
  private boolean finished;

  ChunkedInputStream(InputStream in) {
    super(in, 0);
  }

  @Override
  protected String cutOffMessage() {
    return "chunked body cut off";
  }

  /** Moves to the next chunk with data; false at the last chunk. */
  @Override
  protected boolean nextSegment() throws IOException {
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
    return readLine(in, MAX_SIZE_LINE, cutOffMessage(), "chunk size line too long");
  }
}

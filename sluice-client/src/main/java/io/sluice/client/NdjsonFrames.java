package io.sluice.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** One JSON document per line; a blank line is a heartbeat. */
final class NdjsonFrames implements FrameReader {
  private final InputStream in;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(1024);

  NdjsonFrames(InputStream in) {
    this.in = in;
  }

  @Override
  public byte[] next() throws IOException {
    line.reset();
    int b;
    while ((b = in.read()) != '\n') {
      if (b < 0) {
        return null; // a partial last line is a cut-off job, not a message
      }
      line.write(b);
    }
    return line.toByteArray();
  }
}

package io.sluice.client;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A 4-byte big-endian length, then a MessagePack map of that length; length 0 is a heartbeat.
 * The stream may end between frames; a frame cut off part-way is a broken connection.
 */
final class MsgpackFrames {
  private final DataInputStream in;

  MsgpackFrames(InputStream in) {
    this.in = new DataInputStream(in);
  }

  /** The next message; empty for a heartbeat, null when the stream ended between frames. */
  byte[] next() throws IOException {
    int first = in.read();
    if (first < 0) {
      return null;
    }
    int length = first << 24 | in.readUnsignedByte() << 16 | in.readUnsignedShort();
    if (length < 0) {
      throw new IOException("take stream frame too large: " + Integer.toUnsignedString(length));
    }
    byte[] frame = new byte[length];
    in.readFully(frame);
    return frame;
  }
}

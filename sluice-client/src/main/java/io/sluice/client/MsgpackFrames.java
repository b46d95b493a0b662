package io.sluice.client;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/** A 4-byte big-endian length, then a MessagePack map of that length; length 0 is a heartbeat. */
final class MsgpackFrames implements FrameReader {
  private final DataInputStream in;

  MsgpackFrames(InputStream in) {
    this.in = new DataInputStream(in);
  }

  @Override
  public byte[] next() throws IOException {
    int length;
    try {
      length = in.readInt();
    } catch (EOFException e) {
      return null;
    }
    if (length < 0) {
      throw new IOException("take stream frame too large: " + Integer.toUnsignedString(length));
    }
    byte[] frame = new byte[length];
    try {
      in.readFully(frame);
    } catch (EOFException e) {
      return null;
    }
    return frame;
  }
}

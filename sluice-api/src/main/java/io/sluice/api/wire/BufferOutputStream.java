package io.sluice.api.wire;

import io.vertx.core.buffer.Buffer;
import java.io.OutputStream;

/** Lets a Jackson generator write straight into a Vert.x buffer, without an extra copy. */
public final class BufferOutputStream extends OutputStream {
  private final Buffer buffer;

  public BufferOutputStream(Buffer buffer) {
    this.buffer = buffer;
  }

  public Buffer buffer() {
    return buffer;
  }

  @Override
  public void write(int b) {
    buffer.appendByte((byte) b);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) {
    buffer.appendBytes(bytes, offset, length);
  }
}

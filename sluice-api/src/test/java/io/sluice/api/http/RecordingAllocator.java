package io.sluice.api.http;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;

/** Hands out unpooled buffers and keeps each one, so that a test can check they were released. */
public final class RecordingAllocator extends AbstractByteBufAllocator {
  private final List<ByteBuf> made;

  /** {@code made} receives every buffer handed out. */
  public RecordingAllocator(List<ByteBuf> made) {
    super(true);
    this.made = made;
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    return keep(Unpooled.buffer(initialCapacity, maxCapacity));
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return keep(Unpooled.directBuffer(initialCapacity, maxCapacity));
  }

  private ByteBuf keep(ByteBuf buf) {
    made.add(buf);
    return buf;
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }
}

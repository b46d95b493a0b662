package io.sluice.bench;

import io.vertx.core.buffer.Buffer;
import java.util.AbstractList;
import java.util.List;

/**
 * Bulk enqueue bodies built when they are asked for, for enqueues too large to hold in memory up
 * front (a million jobs), where building them is not what is measured.
 */
final class LazyBatches {
  /** Builds the body holding items [first, end). */
  interface Body {
    Buffer build(int first, int end);
  }

  private LazyBatches() {}

  /** {@code total} items in bodies of {@code batchSize}, the last one possibly shorter. */
  static List<Buffer> of(int total, int batchSize, Body body) {
    int count = (total + batchSize - 1) / batchSize;
    return new AbstractList<>() {
      @Override
      public Buffer get(int index) {
        if (index < 0 || index >= count) {
          throw new IndexOutOfBoundsException(index);
        }
        int first = index * batchSize;
        return body.build(first, Math.min(total, first + batchSize));
      }

      @Override
      public int size() {
        return count;
      }
    };
  }

  /**
   * Pads the payload object opened at {@code start} in {@code sb} with x's, so that it will be
   * {@code payloadBytes} long once the caller's closing quote and brace are appended (no padding
   * if the fields already take that much).
   */
  static void pad(StringBuilder sb, int start, int payloadBytes) {
    int pad = payloadBytes - (sb.length() - start) - 2;
    for (int i = 0; i < pad; i++) {
      sb.append('x');
    }
  }
}

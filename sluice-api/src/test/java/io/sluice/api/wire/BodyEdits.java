package io.sluice.api.wire;

import java.util.Arrays;
import java.util.Random;

/** Random edits of request bodies, for the tests that hold two readers of a body to each other. */
final class BodyEdits {
  private BodyEdits() {}

  /**
   * One random edit of a non-empty body: a byte dropped, replaced or inserted (one of
   * {@code bytes}, or now and then a control character), or the body cut short.
   */
  static byte[] edit(Random random, byte[] body, byte[] bytes) {
    int at = random.nextInt(body.length);
    byte b = random.nextInt(10) == 0 ? (byte) random.nextInt(32)
        : bytes[random.nextInt(bytes.length)];
    return switch (random.nextInt(4)) {
      case 0 -> concat(Arrays.copyOfRange(body, 0, at),
          Arrays.copyOfRange(body, at + 1, body.length));
      case 1 -> {
        byte[] copy = body.clone();
        copy[at] = b;
        yield copy;
      }
      case 2 -> concat(concat(Arrays.copyOfRange(body, 0, at), new byte[] {b}),
          Arrays.copyOfRange(body, at, body.length));
      default -> Arrays.copyOf(body, at);
    };
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}

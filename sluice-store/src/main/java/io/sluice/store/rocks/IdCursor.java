package io.sluice.store.rocks;

import java.util.Arrays;

/**
 * Walks job keys in one direction, in key order (reversed when descending). The secondary-index
 * lookups compose these: a union per term, an intersection across terms.
 */
interface IdCursor extends AutoCloseable {
  /** The job key the cursor is on, or null once it is exhausted. */
  byte[] current();

  /** Moves past the current key. */
  void next();

  /** Moves to the first key at or beyond {@code target} in the walking direction. */
  void seek(byte[] target);

  @Override
  void close();

  /** Key order in the walking direction: negative when {@code a} comes first. */
  static int compare(byte[] a, byte[] b, boolean descending) {
    int c = Arrays.compareUnsigned(a, b);
    return descending ? -c : c;
  }
}

package io.sluice.store.rocks;

import java.util.Arrays;
import java.util.List;

/** The job keys found in any of several cursors, each once. */
final class UnionCursor implements IdCursor {
  private final List<IdCursor> parts;
  private final boolean descending;
  private byte[] current;

  UnionCursor(List<IdCursor> parts, boolean descending) {
    this.parts = parts;
    this.descending = descending;
    pick();
  }

  @Override
  public byte[] current() {
    return current;
  }

  @Override
  public void next() {
    if (current == null) {
      return;
    }
    for (IdCursor part : parts) {
      if (part.current() != null && Arrays.equals(part.current(), current)) {
        part.next();
      }
    }
    pick();
  }

  @Override
  public void seek(byte[] target) {
    for (IdCursor part : parts) {
      part.seek(target);
    }
    pick();
  }

  private void pick() {
    byte[] first = null;
    for (IdCursor part : parts) {
      byte[] key = part.current();
      if (key != null && (first == null || IdCursor.compare(key, first, descending) < 0)) {
        first = key;
      }
    }
    current = first;
  }

  @Override
  public void close() {
    parts.forEach(IdCursor::close);
  }
}

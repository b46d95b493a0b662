package io.sluice.store.rocks;

import java.util.Arrays;
import java.util.List;

/** The job keys found in any of several cursors, each once. */
final class UnionCursor extends CompositeCursor {
  UnionCursor(List<IdCursor> parts, boolean descending) {
    super(parts, descending);
    settle();
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
    settle();
  }

  @Override
  protected void settle() {
    byte[] first = null;
    for (IdCursor part : parts) {
      byte[] key = part.current();
      if (key != null && (first == null || IdCursor.compare(key, first, descending) < 0)) {
        first = key;
      }
    }
    current = first;
  }
}

package io.sluice.store.rocks;

import java.util.Arrays;
import java.util.List;

/**
 * The job keys found in every one of several cursors. Each lagging cursor seeks straight to the
 * furthest key seen (a leapfrog join), so the walk costs about as much as the most selective
 * cursor, whichever it is.
 */
final class IntersectionCursor extends CompositeCursor {
  IntersectionCursor(List<IdCursor> parts, boolean descending) {
    super(parts, descending);
    settle();
  }

  @Override
  public void next() {
    if (current == null) {
      return;
    }
    parts.get(0).next();
    settle();
  }

  @Override
  protected void settle() {
    while (true) {
      byte[] furthest = null;
      for (IdCursor part : parts) {
        byte[] key = part.current();
        if (key == null) {
          current = null;
          return;
        }
        if (furthest == null || IdCursor.compare(key, furthest, descending) > 0) {
          furthest = key;
        }
      }
      boolean agreed = true;
      for (IdCursor part : parts) {
        if (!Arrays.equals(part.current(), furthest)) {
          part.seek(furthest);
          agreed = false;
        }
      }
      if (agreed) {
        current = furthest;
        return;
      }
    }
  }
}

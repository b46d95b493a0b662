package io.sluice.store.rocks;

import java.util.List;

/** A cursor combining several others; subclasses decide which key is current after a move. */
abstract class CompositeCursor implements IdCursor {
  protected final List<IdCursor> parts;
  protected final boolean descending;
  protected byte[] current;

  CompositeCursor(List<IdCursor> parts, boolean descending) {
    this.parts = parts;
    this.descending = descending;
  }

  /** Sets {@link #current} from the parts' positions, moving them further if needed. */
  protected abstract void settle();

  @Override
  public byte[] current() {
    return current;
  }

  @Override
  public void seek(byte[] target) {
    for (IdCursor part : parts) {
      part.seek(target);
    }
    settle();
  }

  @Override
  public void close() {
    parts.forEach(IdCursor::close);
  }
}

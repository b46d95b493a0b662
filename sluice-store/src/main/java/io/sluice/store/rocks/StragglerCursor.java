package io.sluice.store.rocks;

import io.sluice.engine.job.JobId;
import java.util.Iterator;
import java.util.NavigableSet;

/** The job keys of a concurrent sorted set of ids, walked while the set may change. */
final class StragglerCursor implements IdCursor {
  private final NavigableSet<JobId> ids;
  private final boolean descending;
  private Iterator<JobId> it;
  private byte[] current;

  /** {@code ids} in key order; walked backwards when {@code descending}. */
  StragglerCursor(NavigableSet<JobId> ids, boolean descending) {
    this.ids = descending ? ids.descendingSet() : ids;
    this.descending = descending;
    this.it = this.ids.iterator();
    read();
  }

  @Override
  public byte[] current() {
    return current;
  }

  @Override
  public void next() {
    if (current != null) {
      read();
    }
  }

  @Override
  public void seek(byte[] target) {
    if (current == null || IdCursor.compare(current, target, descending) >= 0) {
      return;
    }
    it = ids.tailSet(Keys.jobId(target), true).iterator();
    read();
  }

  private void read() {
    current = it.hasNext() ? Keys.job(it.next()) : null;
  }

  @Override
  public void close() {}
}

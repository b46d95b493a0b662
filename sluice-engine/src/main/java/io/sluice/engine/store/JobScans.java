package io.sluice.engine.store;

import io.sluice.engine.job.JobSnapshot;
import java.util.NoSuchElementException;
import java.util.function.Supplier;

/** Builds scans from a source that yields records one by one. */
public final class JobScans {
  private JobScans() {}

  /**
   * A scan over what {@code nextOrNull} yields until it returns null; {@code onClose} releases
   * what the source holds. The source is asked one record ahead, so {@code hasNext} is exact
   * even when it skips records (deleted meanwhile, say).
   */
  public static JobStore.JobScan from(Supplier<JobSnapshot> nextOrNull, Runnable onClose) {
    return new JobStore.JobScan() {
      private JobSnapshot next = nextOrNull.get();

      @Override
      public boolean hasNext() {
        return next != null;
      }

      @Override
      public JobSnapshot next() {
        if (next == null) {
          throw new NoSuchElementException();
        }
        JobSnapshot current = next;
        next = nextOrNull.get();
        return current;
      }

      @Override
      public void close() {
        onClose.run();
      }
    };
  }
}

package io.sluice.api.events;

import io.sluice.engine.job.JobId;
import io.sluice.engine.job.JobSnapshot;
import java.util.List;

/**
 * One page of a job tab as read from the store: where it starts in the whole list, how long the
 * list is, and its rows.
 *
 * @param offset the position of the first row in the tab's list (exact at either end, an
 *     estimate in between: see docs/events.md)
 * @param total the tab's job count as the engine last published it
 */
record JobWindow(Tab tab, long offset, long total, List<Row> rows) {
  /**
   * One job. {@code payload} is null when it is larger than the feed sends (its size is in
   * {@code payloadBytes}) or was deleted meanwhile (then {@code payloadBytes} is 0).
   */
  record Row(JobSnapshot job, byte[] payload, int payloadBytes, boolean match) {}

  /** Where a window starts: its first job and that job's position. */
  record Anchor(JobId first, long offset) {}

  /** The anchor of this window, or null when it is empty. */
  Anchor anchor() {
    return rows.isEmpty() ? null : new Anchor(rows.get(0).job().id(), offset);
  }
}

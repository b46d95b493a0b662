package io.sluice.engine.budget;

import io.sluice.engine.job.Job;
import io.sluice.engine.schedule.DeadlineIndex;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the budget book last concluded about each budget head: that it can pay now (an offer,
 * until the dispatcher collects it), that the drip pays for it at an instant (an armed wake-up),
 * or neither (it waits for a release or a policy change).
 *
 * <p>Owned by the engine thread.
 */
final class HeadVerdicts {
  /**
   * Heads found able to pay since the dispatcher last collected them. Replaced, not cleared, when
   * taken: a burst of offers (a partition per job, X3) grows its table, and clearing a big table
   * costs its whole capacity on every later dispatch pass.
   */
  private Set<Job> offers = new LinkedHashSet<>();
  /** When each armed head should be looked at again. */
  private final Map<Job, Long> wakeAtMs = new HashMap<>();
  private final DeadlineIndex wakes = new DeadlineIndex(wakeAtMs::get);

  /** The head can pay now. */
  void offer(Job job) {
    disarm(job);
    offers.add(job);
  }

  /** The drip pays for the head at {@code atMs}. */
  void arm(Job job, long atMs) {
    offers.remove(job);
    disarm(job);
    wakeAtMs.put(job, atMs);
    wakes.add(job);
  }

  /** Nothing to conclude: the job waits, or is no longer a head. */
  void forget(Job job) {
    offers.remove(job);
    disarm(job);
  }

  private void disarm(Job job) {
    if (wakeAtMs.containsKey(job)) {
      wakes.remove(job);
      wakeAtMs.remove(job);
    }
  }

  boolean hasOffers() {
    return !offers.isEmpty();
  }

  List<Job> pendingOffers() {
    return List.copyOf(offers);
  }

  List<Job> takeOffers() {
    if (offers.isEmpty()) {
      return List.of();
    }
    List<Job> taken = List.copyOf(offers);
    offers = new LinkedHashSet<>();
    return taken;
  }

  Map<Job, Long> armed() {
    return new HashMap<>(wakeAtMs);
  }

  long nextWakeMs() {
    return wakes.earliestMs();
  }

  /** Takes off every head whose wake-up instant has come. */
  List<Job> takeDue(long nowMs) {
    List<Job> due = wakes.pollDue(nowMs, Integer.MAX_VALUE);
    for (int i = 0; i < due.size(); i++) {
      wakeAtMs.remove(due.get(i));
    }
    return due;
  }
}

package io.sluice.engine;

import io.sluice.engine.job.Job;
import io.sluice.engine.budget.TokenBucket;
import io.sluice.engine.dispatch.Dispatcher;
import io.sluice.engine.store.Mutation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The durable effects of one engine turn: the mutations to commit as one batch, the new jobs
 * that become dispatchable once that batch is durable, and the deliveries that may reach their
 * workers only then (jobs charged to durable budgets, X4).
 *
 * <p>Filled by the engine thread, then handed whole to the commit thread.
 */
public final class Turn {
  private final List<Mutation> mutations = new ArrayList<>();
  private final List<Job> newJobs = new ArrayList<>();
  private List<Dispatcher.Departure> departures = List.of();
  private Map<String, TokenBucket> bucketsBefore = Map.of();
  private List<Dispatcher.AwaitingCommit> awaitingCommit = List.of();
  private boolean hasEnqueues;
  private boolean hasOtherWrites;

  void enqueueWrite(Mutation mutation) {
    mutations.add(mutation);
    hasEnqueues = true;
  }

  void write(Mutation mutation) {
    mutations.add(mutation);
    hasOtherWrites = true;
  }

  void indexAfterCommit(Job job) {
    newJobs.add(job);
  }

  void departures(List<Dispatcher.Departure> departures) {
    this.departures = departures;
  }

  /** Jobs that left flight in this turn, with the stream and dispatch time they had. */
  public List<Dispatcher.Departure> departures() {
    return departures;
  }

  void bucketsBefore(Map<String, TokenBucket> bucketsBefore) {
    this.bucketsBefore = bucketsBefore;
  }

  /** Budget buckets as they were before this turn changed or deleted their budgets, by key. */
  public Map<String, TokenBucket> bucketsBefore() {
    return bucketsBefore;
  }

  void awaitingCommit(List<Dispatcher.AwaitingCommit> awaitingCommit) {
    this.awaitingCommit = awaitingCommit;
  }

  /**
   * Streams whose delivery holds jobs charged to durable budgets (X4): it is written to them only
   * once this turn, which stores those budgets' token state, is durable.
   */
  public List<Dispatcher.AwaitingCommit> awaitingCommit() {
    return awaitingCommit;
  }

  public List<Mutation> mutations() {
    return mutations;
  }

  public List<Job> newJobs() {
    return newJobs;
  }

  public boolean hasEnqueues() {
    return hasEnqueues;
  }

  public boolean hasOtherWrites() {
    return hasOtherWrites;
  }

  public boolean isEmpty() {
    return mutations.isEmpty() && newJobs.isEmpty() && departures.isEmpty()
        && awaitingCommit.isEmpty();
  }
}

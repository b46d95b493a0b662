package io.sluice.engine.job;

import java.util.Comparator;
import java.util.List;

/**
 * The live state of one job.
 *
 * <p>Owned and mutated by the engine thread only; other threads see {@link JobSnapshot}s. Time
 * fields use {@link #NONE} for "not set".
 */
public final class Job {
  public static final long NONE = -1;
  /** The order jobs are dispatched in, within a queue and within a budget: priority, then id. */
  public static final Comparator<Job> DISPATCH_ORDER = new DispatchOrder();

  private final JobId id;
  private final String type;
  private String queue;
  private int priority;
  private JobStatus status;
  private long readyAtMs;
  private int attempts;
  private long dequeuedAtMs = NONE;
  /**
   * Set on every completion, also of jobs forgotten at once, so not among the uncommon fields: an
   * object made then, from a job already promoted, would be promoted too.
   */
  private long completedAtMs = NONE;
  /** Set on every job kept after it finishes, which with a retention can be most of them. */
  private long purgeAtMs = NONE;
  /** Canonical JSON payload while it is cached in memory; null once evicted to the store only. */
  private byte[] payload;
  private List<Binding> budgets = List.of();
  /** True from enqueue until the write is durable; such a job is in no index yet. */
  private boolean pending;
  /** True while the engine's job table holds this object (see {@code JobTable}). */
  private boolean held;
  /**
   * True when the stored record holds the payload (small payloads, written with the new job):
   * every rewrite of the record must carry it over, and deleting the record deletes it.
   */
  private boolean payloadInRecord;
  /**
   * What most jobs never set, in an object of its own: a plain job takes 24 bytes less (88, not
   * 112), heap the collector copies and promotes, and one with any of these set 24 more (136).
   * Null while all are defaults (docs/decisions.md).
   */
  private Uncommon uncommon;

  /** The fields of {@link Job} that keep their defaults for most jobs. */
  private static final class Uncommon {
    /** How many error records the job has: its attempts plus its throttled failures (X6). */
    int errorRecords;
    Integer retryLimit;
    BackoffPolicy backoff;
    RetentionPolicy retention;
    long failedAtMs = NONE;
    UniqueKey unique;
    BatchConfig batch;
  }

  public Job(JobId id, String type, String queue, int priority, JobStatus status, long readyAtMs) {
    this.id = id;
    this.type = type;
    this.queue = queue;
    this.priority = priority;
    this.status = status;
    this.readyAtMs = readyAtMs;
  }

  public JobId id() {
    return id;
  }

  public UniqueKey unique() {
    return uncommon == null ? null : uncommon.unique;
  }

  public void unique(UniqueKey unique) {
    if (unique != null || uncommon != null) {
      uncommonOrNew().unique = unique;
    }
  }

  public BatchConfig batch() {
    return uncommon == null ? null : uncommon.batch;
  }

  public void batch(BatchConfig batch) {
    if (batch != null || uncommon != null) {
      uncommonOrNew().batch = batch;
    }
  }

  private Uncommon uncommonOrNew() {
    if (uncommon == null) {
      uncommon = new Uncommon();
    }
    return uncommon;
  }

  public String type() {
    return type;
  }

  public String queue() {
    return queue;
  }

  public void queue(String queue) {
    this.queue = queue;
  }

  public int priority() {
    return priority;
  }

  public void priority(int priority) {
    this.priority = priority;
  }

  public JobStatus status() {
    return status;
  }

  public void status(JobStatus status) {
    this.status = status;
  }

  public long readyAtMs() {
    return readyAtMs;
  }

  public void readyAtMs(long readyAtMs) {
    this.readyAtMs = readyAtMs;
  }

  public int attempts() {
    return attempts;
  }

  public void attempts(int attempts) {
    this.attempts = attempts;
  }

  /** How many error records the job has: its attempts plus its throttled failures (X6). */
  public int errorRecords() {
    return uncommon == null ? 0 : uncommon.errorRecords;
  }

  public void errorRecords(int errorRecords) {
    if (errorRecords != 0 || uncommon != null) {
      uncommonOrNew().errorRecords = errorRecords;
    }
  }

  public Integer retryLimit() {
    return uncommon == null ? null : uncommon.retryLimit;
  }

  public void retryLimit(Integer retryLimit) {
    if (retryLimit != null || uncommon != null) {
      uncommonOrNew().retryLimit = retryLimit;
    }
  }

  public BackoffPolicy backoff() {
    return uncommon == null ? null : uncommon.backoff;
  }

  public void backoff(BackoffPolicy backoff) {
    if (backoff != null || uncommon != null) {
      uncommonOrNew().backoff = backoff;
    }
  }

  public RetentionPolicy retention() {
    return uncommon == null ? null : uncommon.retention;
  }

  public void retention(RetentionPolicy retention) {
    retentionAsGiven(retention == null || retention.isEmpty() ? null : retention);
  }

  /** Sets the retention as a snapshot holds it, without dropping an empty one. */
  private void retentionAsGiven(RetentionPolicy retention) {
    if (retention != null || uncommon != null) {
      uncommonOrNew().retention = retention;
    }
  }

  public long dequeuedAtMs() {
    return dequeuedAtMs;
  }

  public void dequeuedAtMs(long dequeuedAtMs) {
    this.dequeuedAtMs = dequeuedAtMs;
  }

  public long failedAtMs() {
    return uncommon == null ? NONE : uncommon.failedAtMs;
  }

  public void failedAtMs(long failedAtMs) {
    if (failedAtMs != NONE || uncommon != null) {
      uncommonOrNew().failedAtMs = failedAtMs;
    }
  }

  public long completedAtMs() {
    return completedAtMs;
  }

  public void completedAtMs(long completedAtMs) {
    this.completedAtMs = completedAtMs;
  }

  public long purgeAtMs() {
    return purgeAtMs;
  }

  public void purgeAtMs(long purgeAtMs) {
    this.purgeAtMs = purgeAtMs;
  }

  public byte[] payload() {
    return payload;
  }

  public void payload(byte[] payload) {
    this.payload = payload;
  }

  public List<Binding> budgets() {
    return budgets;
  }

  public void budgets(List<Binding> budgets) {
    this.budgets = List.copyOf(budgets);
  }

  /** The job's binding to the budget {@code key}, or null when it is not bound to it. */
  public Binding binding(String key) {
    for (Binding binding : budgets) {
      if (binding.key().equals(key)) {
        return binding;
      }
    }
    return null;
  }

  /** Records what the worker reported the binding to {@code key} really cost (X5). */
  public void settle(String key, long actual) {
    budgets = budgets.stream()
        .map(binding -> binding.key().equals(key) ? binding.settled(actual) : binding)
        .toList();
  }

  /** A new attempt starts: what the last one was settled at no longer describes it (X5). */
  public void forgetSettlements() {
    budgets = unsettled(budgets);
  }

  /** The bindings without their settled costs. */
  public static List<Binding> unsettled(List<Binding> bindings) {
    // Indexed: on C1 a for-each allocates an iterator, on every dispatch.
    for (int i = 0; i < bindings.size(); i++) {
      if (bindings.get(i).settledCost() != null) {
        return bindings.stream().map(Binding::unsettled).toList();
      }
    }
    return bindings;
  }

  public boolean pending() {
    return pending;
  }

  public boolean held() {
    return held;
  }

  public void held(boolean held) {
    this.held = held;
  }

  public void pending(boolean pending) {
    this.pending = pending;
  }

  public boolean payloadInRecord() {
    return payloadInRecord;
  }

  public void payloadInRecord(boolean payloadInRecord) {
    this.payloadInRecord = payloadInRecord;
  }

  /** True when the job is past its purge time and so invisible to every API. */
  public boolean isPurgedAt(long nowMs) {
    return purgeAtMs != NONE && purgeAtMs <= nowMs;
  }

  public JobSnapshot snapshot(boolean withPayload) {
    return snapshotWith(withPayload ? payload : null);
  }

  /** A snapshot carrying {@code payload} (null: none), such as one read from the store. */
  public JobSnapshot snapshotWith(byte[] payload) {
    return new JobSnapshot(
        id, type, queue, priority, status, readyAtMs, attempts, retryLimit(), backoff(),
        retention(), dequeuedAtMs, failedAtMs(), completedAtMs, purgeAtMs, payload, budgets,
        unique(), batch(), errorRecords());
  }

  /** The job of {@code s} under the given (canonical) type and queue names. */
  public static Job fromSnapshot(JobSnapshot s, String type, String queue) {
    Job job = new Job(s.id(), type, queue, s.priority(), s.status(), s.readyAtMs());
    job.attempts = s.attempts();
    job.errorRecords(s.errorRecords());
    job.retryLimit(s.retryLimit());
    job.backoff(s.backoff());
    job.retentionAsGiven(s.retention());
    job.dequeuedAtMs = s.dequeuedAtMs();
    job.failedAtMs(s.failedAtMs());
    job.completedAtMs = s.completedAtMs();
    job.purgeAtMs = s.purgeAtMs();
    job.budgets = s.budgets();
    job.unique(s.unique());
    job.batch(s.batch());
    return job;
  }

  /**
   * {@link #DISPATCH_ORDER}, written out: every ready job's insert and removal compares with it
   * about twenty times, and on C1 a comparator composed of lambdas makes each comparison four
   * interface calls it does not inline.
   */
  private static final class DispatchOrder implements Comparator<Job> {
    @Override
    public int compare(Job a, Job b) {
      int byPriority = Integer.compare(a.priority, b.priority);
      return byPriority != 0 ? byPriority : a.id.compareTo(b.id);
    }
  }
}

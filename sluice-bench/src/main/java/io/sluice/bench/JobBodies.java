package io.sluice.bench;

import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Builds enqueue request bodies ahead of time so building them is never part of a measurement.
 *
 * <p>Each payload carries the job's sequence number (to correlate deliveries with sends without a
 * lookup table of server ids) and the run's nonce (so jobs left behind by an earlier run on a
 * shared server are recognised as strays instead of being miscounted as ours). Padding brings the
 * payload to the requested size.
 *
 * <p>For the budget workloads a job can be bound to one budget, chosen per sequence number, with
 * cost 1. Budget keys are the bench's own plain ASCII names, so they need no JSON escaping.
 */
final class JobBodies {

  private final String queue;
  private final String nonce;
  private final int payloadBytes;
  /** Budget key for a sequence number, or null for unbound jobs. */
  private final IntFunction<String> budgetKey;
  /** Partition of the budget for a sequence number (X3), or null for a plain budget. */
  private final IntFunction<String> partition;

  JobBodies(String queue, String nonce, int payloadBytes) {
    this(queue, nonce, payloadBytes, null);
  }

  /** @param budgetKey the budget each job is bound to (cost 1), by sequence number; null = unbound */
  JobBodies(String queue, String nonce, int payloadBytes, IntFunction<String> budgetKey) {
    this(queue, nonce, payloadBytes, budgetKey, null);
  }

  /** @param partition the partition of a partitioned budget each job draws on; null = none */
  JobBodies(String queue, String nonce, int payloadBytes, IntFunction<String> budgetKey,
      IntFunction<String> partition) {
    this.queue = queue;
    this.nonce = nonce;
    this.payloadBytes = payloadBytes;
    this.budgetKey = budgetKey;
    this.partition = partition;
  }

  /** Every job bound to the same budget. */
  static IntFunction<String> allTo(String key) {
    return seq -> key;
  }

  /** Body for {@code POST /jobs}. */
  Buffer single(int seq) {
    StringBuilder sb = new StringBuilder(payloadBytes + 64);
    appendJob(sb, seq);
    return Buffer.buffer(sb.toString());
  }

  /** Bodies for {@code POST /jobs/bulk}, sequence numbers 0..jobs-1 in order, batchSize per body. */
  List<Buffer> bulk(int jobs, int batchSize) {
    List<Buffer> bodies = new ArrayList<>(batches(jobs, batchSize));
    StringBuilder sb = new StringBuilder(batchSize * (payloadBytes + 64) + 16);
    for (int first = 0; first < jobs; first += batchSize) {
      bodies.add(bulkBody(sb, first, Math.min(jobs, first + batchSize)));
    }
    return bodies;
  }

  /** The same bodies as {@link #bulk}, each built when it is asked for (see LazyBatches). */
  List<Buffer> lazyBulk(int jobs, int batchSize) {
    return LazyBatches.of(jobs, batchSize, (first, end) -> bulkBody(
        new StringBuilder(batchSize * (payloadBytes + 64) + 16), first, end));
  }

  private Buffer bulkBody(StringBuilder sb, int first, int end) {
    sb.setLength(0);
    sb.append("{\"jobs\":[");
    for (int seq = first; seq < end; seq++) {
      if (seq > first) {
        sb.append(',');
      }
      appendJob(sb, seq);
    }
    sb.append("]}");
    return Buffer.buffer(sb.toString());
  }

  private static int batches(int jobs, int batchSize) {
    return (jobs + batchSize - 1) / batchSize;
  }

  /** Number of jobs in bulk body {@code index}; the last batch may be short. */
  static int batchJobs(int jobs, int batchSize, int index) {
    return Math.min(batchSize, jobs - index * batchSize);
  }

  private void appendJob(StringBuilder sb, int seq) {
    sb.append("{\"type\":\"bench\",\"queue\":\"").append(queue).append("\",\"payload\":");
    appendPayload(sb, seq);
    if (budgetKey != null) {
      sb.append(",\"budgets\":[{\"key\":\"").append(budgetKey.apply(seq));
      if (partition != null) {
        sb.append("\",\"partition\":\"").append(partition.apply(seq));
      }
      sb.append("\",\"cost\":1}]");
    }
    sb.append('}');
  }

  void appendPayload(StringBuilder sb, int seq) {
    int start = sb.length();
    sb.append("{\"seq\":").append(seq).append(",\"nonce\":\"").append(nonce).append("\",\"pad\":\"");
    LazyBatches.pad(sb, start, payloadBytes);
    sb.append("\"}");
  }
}
